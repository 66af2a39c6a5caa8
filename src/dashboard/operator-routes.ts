/**
 * The dashboard's forms that create or remove something: `POST /admin/dashboard/tenants` (a new
 * tenant, its first token shown once), `POST …/tenants/{tenant_id}/tokens` (a token for a role and
 * a lifetime, shown once) and `POST …/tenants/{tenant_id}/delete` (a suspended tenant, its id typed
 * to confirm). A token is answered on the POST's own page (201, `no-store`), never by a redirect;
 * a deletion redirects to the overview. Same auth as the page's other forms (src/http/dashboard-form.ts).
 */
import { Elysia } from "elysia";
import type { HttpKit } from "../http/http-kit.ts";
import { validatedBody } from "../http/validate-body.ts";
import { problems } from "../models/problem.ts";
import { TenantParams } from "../models/tenant.ts";
import {
  ADMIN_FORM,
  CreateTenantForm,
  DeleteTenantForm,
  HtmlPage,
  MintTokenForm,
  pages,
  Redirect,
  DASHBOARD_TAGS as tags,
} from "./model.ts";
import type { OperatorActions } from "./operator-actions.ts";
import { redirectTo } from "./redirect.ts";
import { PAGE_HEADERS } from "./views/page.ts";
import { CREATE_TENANT_PATH, DASHBOARD_PATH } from "./views/paths.ts";
import { tokenPage } from "./views/token-page.ts";

const adminForm = ADMIN_FORM;

export interface DashboardOperatorRouteDeps {
  http: HttpKit;
  actions: OperatorActions;
}

export const dashboardOperatorRoutes = ({ http, actions }: DashboardOperatorRouteDeps) =>
  new Elysia({ name: "routes.dashboard.operator" })
    .use(http.authPlugin)
    .use(http.tenantParam)
    .post(
      CREATE_TENANT_PATH,
      async ({ body, principal, set }) => {
        const shown = await actions.createTenant(body.name, principal.sub);
        set.status = 201;
        Object.assign(set.headers, PAGE_HEADERS);
        return tokenPage(shown);
      },
      {
        adminForm,
        ...validatedBody(CreateTenantForm),
        response: { 201: HtmlPage, ...pages(401, 403, 409, 422), ...problems(503, 507) },
        detail: {
          tags,
          summary:
            "The overview's new-tenant form: creates the tenant as POST /admin/tenants does and shows its first tenant_admin token once",
        },
      },
    )
    .post(
      "/admin/dashboard/tenants/:tenant_id/tokens",
      async ({ tenant, body, principal, set }) => {
        const shown = await actions.mintToken(tenant, body, principal.sub);
        set.status = 201;
        Object.assign(set.headers, PAGE_HEADERS);
        return tokenPage(shown);
      },
      {
        adminForm,
        tenant: "any",
        params: TenantParams,
        ...validatedBody(MintTokenForm),
        response: { 201: HtmlPage, ...pages(401, 403, 404, 422), ...problems(503, 507) },
        detail: {
          tags,
          summary:
            "The tenant page's mint form: a token for roles and a lifetime, as POST /admin/jwt/{tenant_id} mints it, shown once",
        },
      },
    )
    .post(
      "/admin/dashboard/tenants/:tenant_id/delete",
      async ({ tenant, body, principal, set }) => {
        const name = await actions.deleteTenant(tenant, body.confirm, principal.sub);
        return redirectTo(set, `${DASHBOARD_PATH}?${new URLSearchParams({ deleted: name })}#tenants`);
      },
      {
        adminForm,
        tenant: "any",
        params: TenantParams,
        ...validatedBody(DeleteTenantForm),
        response: { 303: Redirect, ...pages(401, 403, 404, 409, 422), ...problems(503, 507) },
        detail: {
          tags,
          summary:
            "The tenant page's delete form: erases a suspended tenant as DELETE /admin/tenants/{tenant_id} does, once its id is typed again",
        },
      },
    );
