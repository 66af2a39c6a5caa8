import type { Caller } from "./caller.ts";
import type { Guard } from "./guard.ts";

/** The operator token holds no memory of its own: refused (403, recorded) for any memory call. */
export function refuseOperator(guard: Guard, caller: Caller, permission: string): void {
  const { principal, req } = caller;
  if (principal.admin)
    throw guard.deny(principal, req, permission, "the operator has no memory: use a tenant token");
}

/** The tenant a memory call acts on: the token's own, if it holds `permission` (403, recorded). */
export function memoryTenant(guard: Guard, caller: Caller, permission: string): string {
  refuseOperator(guard, caller, permission);
  guard.require(caller.principal, permission, caller.req);
  return caller.principal.tenantId;
}
