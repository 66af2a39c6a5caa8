import { Elysia } from "elysia";
import type { Deps } from "./deps.ts";
import { resolvePrincipal } from "./principal.ts";

/** Base of every admin plugin: authenticate, then refuse (and audit) any token without `admin`. */
export const adminBase = (deps: Deps, name: string, prefix: string) =>
  new Elysia({ name, prefix })
    .resolve(({ request }) => resolvePrincipal(deps, request))
    .onBeforeHandle(({ principal, req }) => {
      deps.guard.requireAdmin(principal, req);
    });
