import { Forbidden, NotFound, Unauthorized } from "../errors.ts";
import { isoOf, ULID_RE } from "../models/common.ts";
import type { Denial } from "../models/denial.ts";
import type { Clock } from "../runtime/clock.ts";
import type { SystemStore } from "../vault/system-store.ts";
import { anyGrants } from "./permissions.ts";
import type { Claims, TokenService } from "./tokens.ts";

/** Who is calling: the verified claims of the bearer token. */
export interface Principal {
  sub: string;
  tenantId: string;
  roles: string[];
  admin: boolean;
  expiresAt: string;
}

/** The part of a request a denial record needs. */
export interface RequestInfo {
  method: string;
  path: string;
}

export function requestInfo(request: Request): RequestInfo {
  const url = request.url;
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const end = url.indexOf("?", start);
  return { method: request.method, path: start < 0 ? "/" : url.slice(start, end < 0 ? undefined : end) };
}

export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get("authorization");
  if (!header) return undefined;
  const match = /^Bearer[ ]+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(header);
  return match?.[1];
}

/** Turns a request's bearer token into a Principal, or throws Unauthorized. */
export class Authenticator {
  constructor(
    private readonly tokens: TokenService,
    private readonly store: SystemStore,
  ) {}

  async authenticate(request: Request, cookieToken?: string): Promise<Principal> {
    const raw = bearerToken(request) ?? cookieToken;
    if (!raw) throw new Unauthorized("missing bearer token");
    const claims = await this.tokens.verify(raw);
    if (!claims.admin && !this.store.getTenant(claims.tenant_id)) {
      throw new Unauthorized("the token's tenant does not exist");
    }
    return principalOf(claims);
  }
}

function principalOf(claims: Claims): Principal {
  return {
    sub: claims.sub,
    tenantId: claims.tenant_id,
    roles: claims.roles,
    admin: claims.admin === true,
    expiresAt: isoOf(claims.exp * 1000),
  };
}

export type DenialSink = (denial: Denial) => void;

/**
 * Authorisation: permissions are resolved against the live role library on every request, so a
 * deleted role stops granting at once. Every refusal is recorded as a denial before it is thrown.
 */
export class Guard {
  constructor(
    private readonly store: SystemStore,
    private readonly clock: Clock,
    private readonly recordDenial: DenialSink,
  ) {}

  permissionsOf(principal: Principal): string[] {
    if (principal.admin) return ["*"];
    const held: string[] = [];
    for (const name of principal.roles) {
      const role = this.store.getRole(principal.tenantId, name);
      if (role) held.push(...role.permissions);
    }
    return held;
  }

  require(principal: Principal, permission: string, req: RequestInfo): void {
    if (!anyGrants(this.permissionsOf(principal), permission)) {
      throw this.deny(principal, req, permission, `no role grants ${permission}`);
    }
  }

  requireAdmin(principal: Principal, req: RequestInfo): void {
    if (!principal.admin) throw this.deny(principal, req, "admin", "admin route needs the admin claim");
  }

  /** A tenant token may act only on its own tenant; the operator on any. */
  requireTenantAccess(
    principal: Principal,
    tenantId: string,
    req: RequestInfo,
    permission = "tenant:read",
  ): void {
    if (!principal.admin && principal.tenantId !== tenantId) {
      throw this.deny(principal, req, permission, "token belongs to another tenant");
    }
  }

  deny(principal: Principal, req: RequestInfo, permission: string, reason: string): Forbidden {
    this.recordDenial({
      at: isoOf(this.clock.now()),
      tenant_id: principal.tenantId,
      sub: principal.sub,
      roles: principal.roles,
      method: req.method,
      path: req.path,
      permission,
      reason,
    });
    return new Forbidden(reason, permission);
  }
}

/** Path tenant ids are checked before anything touches the disk: malformed or unknown → 404. */
export function existingTenantId(store: SystemStore, tenantId: string): string {
  if (!ULID_RE.test(tenantId) || !store.getTenant(tenantId))
    throw new NotFound(`no tenant ${safeEcho(tenantId)}`);
  return tenantId;
}

/** Echoes caller input into messages only when it is short and plain. */
export function safeEcho(value: string): string {
  return /^[A-Za-z0-9_-]{1,64}$/.test(value) ? value : "(malformed)";
}
