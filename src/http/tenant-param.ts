import { Elysia } from "elysia";
import type { Caller } from "../auth/caller.ts";
import type { Guard } from "../auth/guard.ts";
import { AppError, NotFound } from "../errors/domain-errors.ts";
import { ULID_RE } from "../models/common.ts";
import type { Tenant } from "../models/tenant.ts";
import type { TenantDirectory } from "../tenants/directory.ts";
import { safeEcho } from "./safe-echo.ts";

/**
 * Which tenants a route's `{tenant_id}` may name: `any` (the operator's routes, webhooks), or `own`,
 * the caller's own (the operator's: any). `own` needs the caller, so `auth` is named before it.
 */
export type TenantScope = "any" | "own";

/** Give it as a typed value: for an inline object, Elysia does not type the handler's `tenant`. */
export interface TenantParamOption {
  scope: TenantScope;
  /** Told of each refusal before it is thrown (the webhook route counts them against the source). */
  onRefusal?: (error: AppError, params: Record<string, string>) => void;
}

type Params = { params: Record<string, string> };

/**
 * The one check of a path's tenant id: a route declares `{ tenant: "any" | "own" }` (after `auth`)
 * and its handler receives `tenant`, a tenant that exists. Runs once per request, after the
 * parameters, query and body are validated and before the handler. A malformed id is a 404 before
 * anything is looked up; for `own`, another tenant's id is refused (403, audited) before its
 * existence is checked, so a tenant token cannot learn which ids exist; an unknown id is a 404.
 */
export function tenantParamPlugin(
  tenants: Pick<TenantDirectory, "get">,
  guard: Pick<Guard, "requireTenantAccess">,
) {
  const existing = (raw: string): Tenant => {
    const tenant = tenants.get(raw);
    if (!tenant) throw new NotFound(`no tenant ${safeEcho(raw)}`);
    return tenant;
  };
  const checked = (raw: string, caller?: Caller): Tenant => {
    if (!ULID_RE.test(raw)) throw new NotFound(`no tenant ${safeEcho(raw)}`);
    if (caller) guard.requireTenantAccess(caller.principal, raw, caller.req);
    return existing(raw);
  };
  const reported = (option: TenantParamOption, params: Record<string, string>, check: () => Tenant) => {
    try {
      return { tenant: check() };
    } catch (error) {
      if (error instanceof AppError) option.onRefusal?.(error, params);
      throw error;
    }
  };
  return new Elysia({ name: "tenant-param" }).macro({
    tenant: (given: TenantScope | TenantParamOption) => {
      const option = typeof given === "string" ? { scope: given } : given;
      if (option.scope === "any")
        return {
          resolve: ({ params }: Params) => reported(option, params, () => checked(tenantIdOf(params))),
        };
      return {
        resolve: ({ params, principal, req }: Params & Partial<Caller>) =>
          reported(option, params, () => checked(tenantIdOf(params), callerOf(principal, req))),
      };
    },
  });
}

function tenantIdOf(params: Record<string, string>): string {
  const raw = params.tenant_id;
  if (raw === undefined) throw new TypeError("the tenant option is for routes with a {tenant_id} parameter");
  return raw;
}

/** The caller the auth plugin resolved; its absence is a route declared without `auth` before `tenant`. */
function callerOf(principal: Caller["principal"] | undefined, req: Caller["req"] | undefined): Caller {
  if (!principal || !req) throw new TypeError('a route with { tenant: "own" } needs `auth` named before it');
  return { principal, req };
}
