/**
 * The operator dashboard (CONTRACT §8): `GET /admin/dashboard` renders the overview; its token form
 * posts to `/admin/dashboard/session`, which sets the cookie the pages' GET requests then carry.
 */
import { Elysia } from "elysia";
import { readFormBody } from "../http/body.ts";
import type { HttpKit } from "../http/http-kit.ts";
import { validatedBody } from "../http/validate-body.ts";
import { parseAs } from "../models/media-type.ts";
import { problems } from "../models/problem.ts";
import { adminCookie, isHttps } from "./cookie.ts";
import {
  DASHBOARD_TAGS,
  DashboardQuery,
  FORM_LIMIT,
  HtmlPage,
  pages,
  Redirect,
  SignInForm,
} from "./model.ts";
import { redirectTo } from "./redirect.ts";
import type { DashboardService } from "./service.ts";
import { dashboardPage } from "./views/dashboard-page.ts";
import { PAGE_HEADERS } from "./views/page.ts";
import { DASHBOARD_PATH, SESSION_PATH, SIGN_OUT_PATH } from "./views/paths.ts";

export { dashboardErrorPage } from "./error-pages.ts";

const tags = DASHBOARD_TAGS;

export interface DashboardRouteDeps {
  http: HttpKit;
  dashboard: DashboardService;
}

export const dashboardRoutes = (deps: DashboardRouteDeps) =>
  new Elysia({ name: "routes.dashboard" })
    .use(deps.http.authPlugin)
    .get(
      DASHBOARD_PATH,
      async ({ query, request, set }) => {
        Object.assign(set.headers, PAGE_HEADERS);
        return dashboardPage(await deps.dashboard.overview(query, request));
      },
      {
        // Its refusals are pages too: a 429 keeps its Retry-After on one (dashboardErrorPage).
        auth: { level: "admin", refusals: pages(400, 413, 429) },
        query: DashboardQuery,
        response: { 200: HtmlPage, ...pages(401, 403, 422), ...problems(503, 507) },
        detail: {
          tags,
          summary: "The operator's page (admin JWT in Authorization or the dashboard cookie)",
        },
      },
    )
    .post(
      SESSION_PATH,
      async ({ body, request, set }) => {
        const maxAge = await deps.dashboard.signIn(body.token, request);
        set.headers["set-cookie"] = adminCookie(body.token, maxAge, isHttps(request));
        return redirectTo(set, DASHBOARD_PATH);
      },
      {
        parse: parseAs("urlencoded", ({ request }: { request: Request }) =>
          readFormBody(request, FORM_LIMIT),
        ),
        ...validatedBody(SignInForm),
        response: { 303: Redirect, ...pages(400, 401, 403, 413, 422), ...problems(503) },
        detail: {
          tags,
          summary: "The dashboard's token form: sets the operator cookie and redirects to the dashboard",
          security: [],
        },
      },
    )
    .get(
      SIGN_OUT_PATH,
      ({ request, set }) => {
        set.headers["set-cookie"] = adminCookie("", 0, isHttps(request));
        return redirectTo(set, DASHBOARD_PATH);
      },
      {
        response: { 303: Redirect },
        detail: { tags, summary: "Sign out: clears the operator cookie", security: [] },
      },
    );
