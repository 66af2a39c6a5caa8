import { Elysia } from "elysia";
import type { HttpKit } from "../http/http-kit.ts";
import { ReloadReport } from "../models/health.ts";
import { problems } from "../models/problem.ts";
import type { SystemService } from "./service.ts";

export interface SystemRouteDeps {
  http: Pick<HttpKit, "authPlugin">;
  system: SystemService;
}

/** `POST /admin/reload`: re-reads the secrets file and the CRM mapping, as SIGHUP does (admin only). */
export const systemRoutes = ({ http, system }: SystemRouteDeps) =>
  new Elysia({ name: "routes.admin.system", prefix: "/admin" })
    .use(http.authPlugin)
    .post("/reload", ({ principal }) => system.reload(principal.sub), {
      auth: "admin",
      response: { 200: ReloadReport, ...problems(401, 403) },
      detail: { tags: ["admin"], summary: "Re-read the secrets file and the CRM mapping; connectors follow" },
    });
