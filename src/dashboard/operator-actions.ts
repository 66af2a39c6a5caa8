/**
 * The dashboard's actions that create or remove something, as the admin API does them (the same
 * services, so the same checks and audit records): create a tenant, mint a token, delete a
 * suspended tenant. What a form sends is turned into the API's own body and checked by its schema,
 * so a form's refusal reads as the API's.
 */
import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { Config } from "../config/config.ts";
import { ValidationFailed } from "../errors/domain-errors.ts";
import { checkBody } from "../http/validate-body.ts";
import { isoOf } from "../models/common.ts";
import { MintTokenBody } from "../models/role.ts";
import type { Tenant } from "../models/tenant.ts";
import type { Clock } from "../runtime/clock.ts";
import { INITIAL_SUB, type TenantService } from "../tenants/service.ts";
import type { TokenMintingService } from "../tokens/service.ts";
import type { TokenPageModel } from "./views/token-page.ts";

const MINT_BODY = TypeCompiler.Compile(MintTokenBody);

export interface OperatorActionDeps {
  config: Pick<Config, "version">;
  clock: Clock;
  tenants: Pick<TenantService, "create" | "delete">;
  minting: Pick<TokenMintingService, "mint">;
}

/** The mint form's fields as it posts them (empty: not given). */
export interface MintAsked {
  roles: string;
  sub?: string;
  ttl_seconds: number | string;
  subject?: string;
}

export class OperatorActions {
  constructor(private readonly deps: OperatorActionDeps) {}

  /** Creates the tenant; the page shows its first tenant_admin token. */
  async createTenant(name: string, by: string): Promise<TokenPageModel> {
    const created = await this.deps.tenants.create(name, by);
    const now = this.deps.clock.now();
    return {
      ...this.stamp(now),
      heading: "Tenant created",
      tenant: { tenant_id: created.tenant_id, name: created.tenant_name },
      token: created.token,
      sub: INITIAL_SUB,
      roles: created.roles,
      expiresAt: isoOf(now + created.ttl_seconds * 1000),
    };
  }

  /** Mints the token as POST /admin/jwt/{tenant_id} does, from the form's fields. */
  async mintToken(tenant: Tenant, asked: MintAsked, by: string): Promise<TokenPageModel> {
    const body = mintBodyOf(asked);
    checkBody(MINT_BODY, body);
    const minted = await this.deps.minting.mint(tenant, body, by);
    return {
      ...this.stamp(this.deps.clock.now()),
      heading: "Token minted",
      tenant: { tenant_id: tenant.tenant_id, name: tenant.name },
      token: minted.token,
      sub: minted.sub,
      roles: minted.roles,
      expiresAt: minted.expires_at,
      subject: body.subject,
    };
  }

  /** Deletes a suspended tenant once its id is typed again; answers its name for the notice. */
  async deleteTenant(tenant: Tenant, confirm: string, by: string): Promise<string> {
    if (confirm.trim() !== tenant.tenant_id)
      throw new ValidationFailed("type the tenant's id to confirm: nothing was deleted", [
        { path: "/confirm", message: `must be ${tenant.tenant_id}` },
      ]);
    await this.deps.tenants.delete(tenant.tenant_id, by);
    return tenant.name;
  }

  private stamp(now: number) {
    return { version: this.deps.config.version, generatedAt: isoOf(now) };
  }
}

/** The form's fields as the API's body: roles split on commas and spaces, empty fields left out. */
export function mintBodyOf(asked: MintAsked): MintTokenBody {
  const roles = asked.roles.split(/[ ,]+/).filter((r) => r.length > 0);
  const { sub, subject } = asked;
  return {
    roles,
    ttl_seconds: Number(asked.ttl_seconds),
    ...(sub ? { sub } : {}),
    ...(subject ? { subject } : {}),
  };
}
