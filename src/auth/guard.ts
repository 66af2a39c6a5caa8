import { Forbidden, TenantSuspended } from "../errors/domain-errors.ts";
import { isoOf } from "../models/common.ts";
import type { Denial } from "../models/denial.ts";
import type { Clock } from "../runtime/clock.ts";
import type { SystemStore } from "../vault/system-store.ts";
import type { Principal, RequestInfo } from "./caller.ts";
import { tenantLabel, undefinedRoles, undefinedRolesNote } from "./defined-roles.ts";
import { anyGrants } from "./permissions.ts";

/** Records a denial; resolves once it is durable. */
export type DenialSink = (denial: Denial) => Promise<void>;

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
      throw this.denyUngranted(principal, req, permission, `no role grants ${permission}`);
    }
  }

  /**
   * The refusal of a permission no role of the token grants: when the token names roles the tenant
   * does not define (deleted, or never created), the reason says which, as that is usually why.
   */
  denyUngranted(principal: Principal, req: RequestInfo, permission: string, reason: string): Forbidden {
    const unknown = principal.admin
      ? []
      : undefinedRoles(principal.roles, (name) => this.store.getRole(principal.tenantId, name) !== undefined);
    if (unknown.length === 0) return this.deny(principal, req, permission, reason);
    const tenant = tenantLabel(principal.tenantId, this.store.getTenant(principal.tenantId)?.name);
    return this.deny(principal, req, permission, `${undefinedRolesNote(unknown, tenant)}; ${reason}`);
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

  /** A suspended tenant's tokens are refused, each refusal audited like any other denial. */
  requireActiveTenant(principal: Principal, req: RequestInfo): void {
    if (principal.admin || this.store.getTenant(principal.tenantId)?.status !== "suspended") return;
    const denied = this.deny(principal, req, "tenant:active", "the tenant is suspended");
    throw new TenantSuspended(denied.message, denied.permission, denied.recorded);
  }

  /** The refusal to throw; it carries the denial's commit, which the errors plugin awaits before the 403. */
  deny(principal: Principal, req: RequestInfo, permission: string, reason: string): Forbidden {
    const recorded = this.recordDenial({
      at: isoOf(this.clock.now()),
      tenant_id: principal.tenantId,
      sub: principal.sub,
      roles: principal.roles,
      method: req.method,
      path: req.path,
      permission,
      reason,
    });
    return new Forbidden(reason, permission, recorded);
  }
}
