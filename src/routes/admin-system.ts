import { Elysia } from "elysia";
import { ReloadReport } from "../models/health.ts";
import { problems } from "../models/problem.ts";
import type { Deps } from "./deps.ts";

/** `POST /admin/reload`: re-reads the secrets file and the CRM mapping, as SIGHUP does (admin only). */
export const adminSystemRoutes = (deps: Deps) =>
  new Elysia({ name: "routes.admin.system", prefix: "/admin" }).use(deps.authPlugin).post(
    "/reload",
    async ({ principal }) => {
      const report = await deps.reload();
      await deps.audit({
        action: "secrets.reloaded",
        sub: principal.sub,
        tenant_id: null,
        target: null,
        details: {
          secrets: report.secrets.error ? "refused" : report.secrets.reloaded ? "reloaded" : "no file",
          tenants_changed: report.secrets.tenants_changed ?? 0,
          crm_mapping: report.crm_mapping.reloaded ? "reloaded" : "refused",
        },
      });
      return report;
    },
    {
      auth: "admin",
      response: { 200: ReloadReport, ...problems(401, 403) },
      detail: { tags: ["admin"], summary: "Re-read the secrets file and the CRM mapping; connectors follow" },
    },
  );
