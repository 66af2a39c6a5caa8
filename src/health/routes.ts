import { Elysia } from "elysia";
import { NotReady } from "../errors/domain-errors.ts";
import type { HttpKit } from "../http/http-kit.ts";
import { Healthz, TenantHealthView } from "../models/health.ts";
import { Liveness, NotReadyProblem, Readiness } from "../models/probes.ts";
import { problems } from "../models/problem.ts";
import { TenantParams } from "../models/tenant.ts";
import type { HealthService } from "./service.ts";

export interface HealthRouteDeps {
  http: HttpKit;
  health: HealthService;
}

/**
 * `/healthz` (no auth), the orchestrator's probes `/livez` and `/readyz` (no auth: kubelet sends no
 * token; docs/operations.md) and the per-tenant health.
 */
export const healthRoutes = ({ http, health }: HealthRouteDeps) =>
  new Elysia({ name: "routes.health" })
    .use(http.authPlugin)
    .use(http.tenantParam)
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
        const { checks, failed } = health.readiness();
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
    .get("/healthz", () => health.healthz(), {
      response: { 200: Healthz },
      detail: {
        tags: ["health"],
        summary: "Build status, tenant count and open-file limits",
        security: [],
      },
    })
    .get(
      "/tenants/:tenant_id/healthz",
      ({ tenant, principal, req }) => health.tenantHealth({ principal, req }, tenant),
      {
        auth: "caller",
        // Another tenant's id is refused whether or not it exists: a 404 would tell which ids do.
        tenant: "own",
        params: TenantParams,
        response: { 200: TenantHealthView, ...problems(401, 403, 404, 503, 507) },
        detail: { tags: ["health"], summary: "Per-tenant health: vault, index, dead letters, connectors" },
      },
    );
