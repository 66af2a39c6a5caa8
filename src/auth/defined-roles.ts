import { ValidationFailed } from "../errors/domain-errors.ts";
import { ROLE_NAME_RE } from "../models/role.ts";

/**
 * Roles named that the tenant's library does not define: in a token (its 403 says so, since a role
 * deleted or never created grants nothing) or in a role list (a 422). Names are shown only when they
 * are well-formed role names; a token's claim could hold anything its signer put there.
 */
export function undefinedRoles(roles: readonly string[], isDefined: (name: string) => boolean): string[] {
  return [...new Set(roles.filter((name) => !isDefined(name)))];
}

/** `"auditor"`, `"auditor", "viewer"`: role names as a message quotes them. */
export function quotedRoles(names: readonly string[]): string {
  return names.map((name) => (ROLE_NAME_RE.test(name) ? JSON.stringify(name) : "(malformed)")).join(", ");
}

/** How a tenant is named in a message: its name when it has one, else its id. */
export function tenantLabel(tenantId: string, name: string | undefined): string {
  return name ? JSON.stringify(name) : tenantId;
}

/** The 403's note on a token's roles: `token role "auditor" is not defined in tenant "Acme"`. */
export function undefinedRolesNote(unknown: readonly string[], tenant: string): string {
  const [noun, verb] = unknown.length === 1 ? ["role", "is"] : ["roles", "are"];
  return `token ${noun} ${quotedRoles(unknown)} ${verb} not defined in tenant ${tenant}`;
}

/**
 * A role list (a token to mint) naming roles the tenant does not define: a 422 that names each and
 * the roles the library holds, so the caller can correct the list.
 */
export function requireDefinedRoles(
  roles: readonly string[],
  library: readonly string[],
  tenant: string,
): void {
  const unknown = undefinedRoles(roles, (name) => library.includes(name));
  if (unknown.length === 0) return;
  const defined = library.length > 0 ? [...library].sort().join(", ") : "none";
  throw new ValidationFailed(
    `unknown role(s) ${quotedRoles(unknown)}: not defined in tenant ${tenant}; its roles are ${defined}`,
    [{ path: "/roles", message: `unknown role(s) ${quotedRoles(unknown)}; must be one of ${defined}` }],
  );
}
