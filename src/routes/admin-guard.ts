import { Elysia } from "elysia";
import type { Deps } from "./deps.ts";
import { resolvePrincipal } from "./principal.ts";

/**
 * Base of every admin plugin: authenticate, then refuse (and audit) any token without `admin`.
 * `derive` runs before body validation, so an anonymous caller gets 401, never a schema hint.
 */
export const adminBase = (deps: Deps, name: string, prefix: string) =>
  new Elysia({ name, prefix }).derive(async ({ request }) => {
    const resolved = await resolvePrincipal(deps, request);
    deps.guard.requireAdmin(resolved.principal, resolved.req);
    return resolved;
  });
