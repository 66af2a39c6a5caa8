/**
 * The tenant and operator helpers: a token's own tenant (`tenants`), and with an operator token
 * (`admin: true`) tenants, tenant tokens and webhook dead letters (`admin`). Every answer's type is
 * the document's for that route.
 */
import type { paths } from "./openapi-types.ts";
import type { Send } from "./send.ts";
import type { BodyOf, OkOf, QueryOf, Result } from "./types.ts";

type TenantPath = "/admin/tenants/{tenant_id}";
type DeadLetterQuery = QueryOf<paths["/admin/webhooks/dead-letters/{tenant_id}"]["get"]>;
type ReplayQuery = QueryOf<paths["/admin/webhooks/replay/{tenant_id}/{event_id}"]["post"]>;
type DiscardPath = "/admin/webhooks/discard/{tenant_id}/{event_id}";

export interface TenantsApi {
  /** `GET /tenants/me`: who the token is (tenant, subject, roles, expiry). */
  me(): Promise<Result<OkOf<paths["/tenants/me"]["get"]>>>;
  /** `GET /tenants`: the token's own tenant (the operator's: all, paged). */
  list(query?: QueryOf<paths["/tenants"]["get"]>): Promise<Result<OkOf<paths["/tenants"]["get"]>>>;
  /** `GET /tenants/{tenant_id}/healthz`: the vault, the index, dead letters and connectors. */
  health(tenantId: string): Promise<Result<OkOf<paths["/tenants/{tenant_id}/healthz"]["get"]>>>;
}

export interface AdminApi {
  tenants: {
    /** `POST /admin/tenants`: the new tenant and a first `tenant_admin` token. */
    create(
      body: BodyOf<paths["/admin/tenants"]["post"]>,
    ): Promise<Result<OkOf<paths["/admin/tenants"]["post"]>>>;
    /** `GET /admin/tenants`: every tenant, oldest first, paged by `cursor`. */
    list(
      query?: QueryOf<paths["/admin/tenants"]["get"]>,
    ): Promise<Result<OkOf<paths["/admin/tenants"]["get"]>>>;
    suspend(tenantId: string): Promise<Result<OkOf<paths[`${TenantPath}/suspend`]["post"]>>>;
    resume(tenantId: string): Promise<Result<OkOf<paths[`${TenantPath}/resume`]["post"]>>>;
    /** `DELETE /admin/tenants/{tenant_id}`: a suspended tenant only (else a 409 problem). */
    remove(tenantId: string): Promise<Result<OkOf<paths[TenantPath]["delete"]>>>;
  };
  tokens: {
    /** `POST /admin/jwt/{tenant_id}`: a token for roles of the tenant's library. */
    mint(
      tenantId: string,
      body: BodyOf<paths["/admin/jwt/{tenant_id}"]["post"]>,
    ): Promise<Result<OkOf<paths["/admin/jwt/{tenant_id}"]["post"]>>>;
  };
  deadLetters: {
    /** `GET /admin/webhooks/dead-letters/{tenant_id}`: newest first, by `status`, at most `limit`. */
    list(
      tenantId: string,
      query?: DeadLetterQuery,
    ): Promise<Result<OkOf<paths["/admin/webhooks/dead-letters/{tenant_id}"]["get"]>>>;
    /** `POST /admin/webhooks/replay/{tenant_id}/{event_id}`: map the stored payload again. */
    replay(
      tenantId: string,
      eventId: string,
      query?: ReplayQuery,
    ): Promise<Result<OkOf<paths["/admin/webhooks/replay/{tenant_id}/{event_id}"]["post"]>>>;
    /** `POST /admin/webhooks/discard/{tenant_id}/{event_id}`: kept as discarded, never replayed again. */
    discard(
      tenantId: string,
      eventId: string,
      query?: QueryOf<paths[DiscardPath]["post"]>,
    ): Promise<Result<OkOf<paths[DiscardPath]["post"]>>>;
  };
}

const tenantParam = (tenantId: string) => ({ path: { tenant_id: tenantId } });

export function tenantsApi(send: Send): TenantsApi {
  return {
    me: () => send("GET", "/tenants/me"),
    list: (query) => send("GET", "/tenants", { params: { query } }),
    health: (tenantId) => send("GET", "/tenants/{tenant_id}/healthz", { params: tenantParam(tenantId) }),
  };
}

export function adminApi(send: Send): AdminApi {
  return {
    tenants: {
      create: (body) => send("POST", "/admin/tenants", { body }),
      list: (query) => send("GET", "/admin/tenants", { params: { query } }),
      suspend: (id) => send("POST", "/admin/tenants/{tenant_id}/suspend", { params: tenantParam(id) }),
      resume: (id) => send("POST", "/admin/tenants/{tenant_id}/resume", { params: tenantParam(id) }),
      remove: (id) => send("DELETE", "/admin/tenants/{tenant_id}", { params: tenantParam(id) }),
    },
    tokens: {
      mint: (tenantId, body) =>
        send("POST", "/admin/jwt/{tenant_id}", { params: tenantParam(tenantId), body }),
    },
    deadLetters: {
      list: (tenantId, query) =>
        send("GET", "/admin/webhooks/dead-letters/{tenant_id}", {
          params: { ...tenantParam(tenantId), query },
        }),
      replay: (tenantId, eventId, query) =>
        send("POST", "/admin/webhooks/replay/{tenant_id}/{event_id}", {
          params: { path: { tenant_id: tenantId, event_id: eventId }, query },
        }),
      discard: (tenantId, eventId, query) =>
        send("POST", "/admin/webhooks/discard/{tenant_id}/{event_id}", {
          params: { path: { tenant_id: tenantId, event_id: eventId }, query },
        }),
    },
  };
}
