import { Elysia } from "elysia";
import type { HttpKit } from "../http/http-kit.ts";
import { decodeCursor, encodeCursor } from "../memory/cursor.ts";
import { AdminEventPage } from "../models/admin-event.ts";
import { PageQuery } from "../models/common.ts";
import { DenialPage } from "../models/denial.ts";
import { problems } from "../models/problem.ts";
import { TenantParams } from "../models/tenant.ts";
import type { AuditLogs, AuditPage } from "./audit-logs.ts";

export interface AuditRouteDeps {
  http: HttpKit;
  auditLogs: Pick<AuditLogs, "adminEvents" | "denials">;
}

const AuditQuery = PageQuery(1000, 100);
const tags = ["admin"];

function before(cursor: string | undefined): number | undefined {
  return cursor === undefined ? undefined : decodeCursor(cursor);
}

function continuation<T>(page: AuditPage<T>): string | null {
  return page.nextBefore === undefined ? null : encodeCursor(page.nextBefore);
}

/** The denial audit log and the admin audit log, newest first, paged by an opaque cursor (admin only). */
export const auditRoutes = ({ http, auditLogs }: AuditRouteDeps) =>
  new Elysia({ name: "routes.admin.audit", prefix: "/admin/audit" })
    .use(http.authPlugin)
    .use(http.tenantParam)
    .get(
      "/events",
      ({ query }) => {
        const page = auditLogs.adminEvents(query.limit ?? 100, before(query.cursor));
        return { events: page.items, next_cursor: continuation(page) };
      },
      {
        auth: "admin",
        query: AuditQuery,
        response: { 200: AdminEventPage, ...problems(401, 403, 422) },
        detail: { tags, summary: "Admin actions, newest first (never a secret or a token)" },
      },
    )
    .get(
      "/denials/:tenant_id",
      ({ tenant, query }) => {
        const tenantId = tenant.tenant_id;
        const page = auditLogs.denials(tenantId, query.limit ?? 100, before(query.cursor));
        return { denials: page.items, next_cursor: continuation(page) };
      },
      {
        auth: "admin",
        tenant: "any",
        params: TenantParams,
        query: AuditQuery,
        response: { 200: DenialPage, ...problems(401, 403, 404, 422) },
        detail: { tags, summary: "Recent RBAC denials for the tenant, newest first" },
      },
    );
