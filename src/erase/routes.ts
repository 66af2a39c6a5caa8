import { Elysia } from "elysia";
import { ValidationFailed } from "../errors/domain-errors.ts";
import type { HttpKit } from "../http/http-kit.ts";
import { validatedBody } from "../http/validate-body.ts";
import { EraseReport, EraseRequest } from "../models/erase.ts";
import { problems } from "../models/problem.ts";
import { TenantParams } from "../models/tenant.ts";
import type { EraseService } from "./service.ts";

export interface EraseRouteDeps {
  http: HttpKit;
  erasure: EraseService;
}

/**
 * `POST /admin/tenants/{tenant_id}/erase` (admin): irrevocable removal of matching entries' content
 * across both time axes, leaving tombstones. The answer comes once the vault is compacted, so the
 * erased bytes are gone from the tenant's files when it arrives.
 */
export const eraseRoutes = ({ http, erasure }: EraseRouteDeps) =>
  new Elysia({ name: "routes.admin.erase", prefix: "/admin" })
    .use(http.authPlugin)
    .use(http.tenantParam)
    .post(
      "/tenants/:tenant_id/erase",
      async ({ tenant, body, principal }) => {
        const tenantId = tenant.tenant_id;
        if (body.ids === undefined && body.subject === undefined && body.tags === undefined)
          throw new ValidationFailed("name what to erase: ids, subject or tags", [
            { path: "/", message: "one of ids, subject, tags is required" },
          ]);
        return erasure.erase(tenantId, body, principal.sub);
      },
      {
        auth: "admin",
        tenant: "any",
        params: TenantParams,
        ...validatedBody(EraseRequest),
        response: { 200: EraseReport, ...problems(400, 401, 403, 404, 413, 415, 422, 503, 507) },
        detail: {
          tags: ["admin"],
          summary:
            "Erase entries (by ids, a subject they mention, or tags) across both time axes, leaving tombstones",
        },
      },
    );
