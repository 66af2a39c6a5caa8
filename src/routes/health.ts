import { Elysia } from "elysia";
import { NotReady } from "../errors.ts";
import { Healthz, TenantHealthView } from "../models/health.ts";
import { Liveness, NotReadyProblem, Readiness } from "../models/probes.ts";
import { problems } from "../models/problem.ts";
import { TenantParams } from "../models/tenant.ts";
import type { Deps } from "./deps.ts";

/**
 * `/healthz` (no auth), the orchestrator's probes `/livez` and `/readyz` (no auth: kubelet sends no
 * token; docs/operations.md) and the per-tenant health.
 */
export const healthRoutes = (deps: Deps) =>
  new Elysia({ name: "routes.health" })
    .use(deps.authPlugin)
    .use(deps.tenantParam)
    .get("/livez", () => ({ status: "ok" as const }), {
      response: { 200: Liveness },
      detail: {
        tags: ["health"],
        summary: "Liveness: the process answers (a failing probe means restart it)",
        security: [],
      },
    })
    .get(
      "/readyz",
      () => {
        const { checks, failed } = deps.readiness();
        if (failed.length > 0) throw new NotReady(failed, checks);
        return { status: "ready" as const, checks };
      },
      {
        response: { 200: Readiness, 503: NotReadyProblem },
        detail: {
          tags: ["health"],
          summary:
            "Readiness: the system store open, the server not stopping and, in cluster mode, the node serving its partitions (503 names the failed check)",
          security: [],
        },
      },
    )
    .get(
      "/healthz",
      () => ({
        status: "ok" as const,
        version: deps.config.version,
        started_at: new Date(deps.startedAt).toISOString(),
        uptime_s: Math.floor((deps.clock.now() - deps.startedAt) / 1000),
        tenants: deps.tenants.count(),
        limits: {
          open_files: deps.limits.openFiles,
          max_open_tenants: deps.limits.maxOpenTenants,
          open_tenants: deps.limits.openTenants(),
        },
      }),
      {
        response: { 200: Healthz },
        detail: {
          tags: ["health"],
          summary: "Build status, tenant count and open-file limits",
          security: [],
        },
      },
    )
    .get(
      "/tenants/:tenant_id/healthz",
      async ({ tenant, principal, req }) => {
        deps.guard.require(principal, "tenant:read", req);
        const tenantId = tenant.tenant_id;
        const base = { tenant_id: tenantId, status: tenant.status };
        // A missing vault is reported, not silently re-created by starting the actor.
        if (!deps.tenants.vaultPresent(tenantId)) {
          return {
            ...base,
            vault: { present: false, entries: 0 },
            index: { vectors: 0, pending: 0, pending_vectors: 0 },
            dead_letters: 0,
            connectors: {},
          };
        }
        return { ...base, ...(await deps.tenant(tenantId).ask({ type: "tenant.health" })) };
      },
      {
        auth: "caller",
        // Another tenant's id is refused whether or not it exists: a 404 would tell which ids do.
        tenant: "own",
        params: TenantParams,
        response: { 200: TenantHealthView, ...problems(401, 403, 404, 503, 507) },
        detail: { tags: ["health"], summary: "Per-tenant health: vault, index, dead letters, connectors" },
      },
    );
