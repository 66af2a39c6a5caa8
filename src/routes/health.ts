import { Elysia } from "elysia";
import { existingTenantId } from "../http/auth.ts";
import { vaultPresent } from "../vault/tenant-paths.ts";
import type { Deps } from "./deps.ts";
import { resolvePrincipal } from "./principal.ts";

/** `/healthz` (no auth) and the per-tenant health. */
export const healthRoutes = (deps: Deps) =>
  new Elysia({ name: "routes.health" })
    .get(
      "/healthz",
      () => ({
        status: "ok",
        version: deps.config.version,
        started_at: new Date(deps.startedAt).toISOString(),
        uptime_s: Math.floor((deps.clock.now() - deps.startedAt) / 1000),
        tenants: deps.store.tenantCount(),
      }),
      { detail: { tags: ["health"], summary: "Build status and tenant count", security: [] } },
    )
    .derive(({ request }) => resolvePrincipal(deps, request))
    .get(
      "/tenants/:tenant_id/healthz",
      async ({ params, principal, req }) => {
        const tenantId = existingTenantId(deps.store, params.tenant_id);
        deps.guard.requireTenantAccess(principal, tenantId, req);
        deps.guard.require(principal, "tenant:read", req);
        const tenant = deps.store.getTenant(tenantId)!;
        const base = { tenant_id: tenantId, status: tenant.status };
        // A missing vault is reported, not silently re-created by starting the actor.
        if (!vaultPresent(deps.config.dataDir, tenantId)) {
          return {
            ...base,
            vault: { present: false, entries: 0 },
            index: { vectors: 0, pending: 0 },
            dead_letters: 0,
            connectors: {},
          };
        }
        return { ...base, ...(await deps.tenant(tenantId).ask({ type: "tenant.health" })) };
      },
      { detail: { tags: ["health"], summary: "Per-tenant health" } },
    );
