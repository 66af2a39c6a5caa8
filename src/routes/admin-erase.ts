import { Elysia } from "elysia";
import { ValidationFailed } from "../errors.ts";
import { validatedBody } from "../http/validate-body.ts";
import { EraseReport, EraseRequest } from "../models/erase.ts";
import { problems } from "../models/problem.ts";
import { TenantParams } from "../models/tenant.ts";
import type { Deps } from "./deps.ts";

/**
 * `POST /admin/tenants/{tenant_id}/erase` (admin): irrevocable removal of matching entries' content
 * across both time axes, leaving tombstones. The answer comes once the vault is compacted, so the
 * erased bytes are gone from the tenant's files when it arrives.
 */
export const adminEraseRoutes = (deps: Deps) =>
  new Elysia({ name: "routes.admin.erase", prefix: "/admin" })
    .use(deps.authPlugin)
    .use(deps.tenantParam)
    .post(
      "/tenants/:tenant_id/erase",
      async ({ tenant, body, principal }) => {
        const tenantId = tenant.tenant_id;
        if (body.ids === undefined && body.subject === undefined && body.tags === undefined)
          throw new ValidationFailed("name what to erase: ids, subject or tags", [
            { path: "/", message: "one of ids, subject, tags is required" },
          ]);
        const report = await deps.eraseEntries(tenantId, body, principal.sub);
        if (!report.dry_run)
          await deps.audit({
            action: "entries.erased",
            sub: principal.sub,
            tenant_id: tenantId,
            target: null,
            // Counts and criteria kinds only: the subject itself is the very data being erased.
            details: {
              entries: report.erased.length,
              dead_letters: report.dead_letters_removed,
              by: ["ids", "subject", "tags"].filter((k) => body[k as keyof typeof body] !== undefined),
            },
          });
        return report;
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
