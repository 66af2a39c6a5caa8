import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { UnsupportedMediaType } from "../errors.ts";
import { RAW_BODY } from "../http/body.ts";
import { NDJSON } from "../http/ndjson.ts";
import { QueryObject } from "../models/common.ts";
import { sentAs } from "../models/media-type.ts";
import { problems } from "../models/problem.ts";
import { SCOPE_FILTERS, scopeFilterOf } from "../models/scope.ts";
import { TenantParams } from "../models/tenant.ts";
import { ImportReply } from "../models/tenant-export.ts";
import type { Deps } from "./deps.ts";

const tags = ["admin"];

const ExportBody = sentAs(
  NDJSON,
  Type.String({
    description:
      "One JSON object a line: a header (format, version, tenant, exported_at, embedding_dims, counts), " +
      "the records ({type, key?, value}: entry, embedding, object, dead_letter, dedupe, idempotency, " +
      "connector_state, change, tombstone, counter, role), then a trailer with the counts written. " +
      "A response without its trailer was cut short.",
  }),
);

const IMPORT_BODY = {
  description: "An export (GET /admin/tenants/{tenant_id}/export), as it was answered",
  required: true,
  content: { [NDJSON]: { schema: { type: "string" } } },
} as const;

/** Export and import of a whole tenant (admin only). */
export const adminTransferRoutes = (deps: Deps) =>
  new Elysia({ name: "routes.admin.transfer", prefix: "/admin/tenants" })
    .use(deps.authPlugin)
    .use(deps.tenantParam)
    .get(
      "/:tenant_id/export",
      async ({ tenant, principal, query }) => {
        const tenantId = tenant.tenant_id;
        const { counts, stream } = await deps.exportImport.export(tenantId, query);
        try {
          await deps.audit({
            action: "tenant.exported",
            sub: principal.sub,
            tenant_id: tenantId,
            target: null,
            // A scoped export says whose memory left (one end user's, for an access request).
            details: { counts, ...(scopeFilterOf(query) ? { scope: scopeFilterOf(query) } : {}) },
          });
        } catch (error) {
          await stream.cancel();
          throw error;
        }
        // The stream goes out as it is; Elysia types a handler's result as the schema's type.
        return new Response(stream, {
          headers: {
            "content-type": NDJSON,
            "x-export-entries": String(counts.entries),
            "content-disposition": `attachment; filename="tenant-${tenantId}.ndjson"`,
          },
        }) as unknown as string;
      },
      {
        auth: "admin",
        tenant: "any",
        params: TenantParams,
        query: QueryObject(SCOPE_FILTERS),
        // 409: a source is paused (its held events are not exported): resume it first.
        response: { 200: ExportBody, ...problems(401, 403, 404, 409, 422, 503, 507) },
        detail: {
          tags,
          summary:
            "Stream the tenant as NDJSON: one consistent snapshot of its vault and roles, never a secret",
          description:
            "`X-Export-Entries` gives the number of entry records before the first byte. With `subject`, " +
            "`session_id` or `agent_id`, only the entries of that scope and their embeddings (and the roles) are exported. The body is " +
            "produced as it is read, in constant memory.",
        },
      },
    )
    .post(
      "/:tenant_id/import",
      async ({ tenant, body, request, principal }) => {
        const tenantId = tenant.tenant_id;
        if (body !== RAW_BODY) throw new UnsupportedMediaType(`send the export as ${NDJSON}`);
        const reply = await deps.exportImport.import(tenantId, request.body);
        await deps.audit({
          action: "tenant.imported",
          sub: principal.sub,
          tenant_id: tenantId,
          target: reply.source_tenant_id,
          details: { imported: reply.imported, took_ms: reply.took_ms },
        });
        return reply;
      },
      {
        auth: "admin",
        tenant: "any",
        params: TenantParams,
        response: { 200: ImportReply, ...problems(401, 403, 404, 409, 413, 415, 422, 503, 507) },
        detail: {
          tags,
          summary: "Import an export into an empty tenant (409 otherwise): all or nothing",
          description:
            "The body is read line by line and written in batches; a line that fails its schema is a " +
            "422 naming the line, and nothing of the import is kept. Ids, both time axes, sequence " +
            "numbers, change log positions and dedupe records are restored as exported; entries take " +
            "this tenant's id; the roles replace this tenant's library. In cluster mode the owner " +
            "stores the imported vault and records it in the partition changelog before answering, so " +
            "it moves with the tenant; when that fails nothing is kept and the answer is 503 with " +
            "Retry-After (docs/cluster.md).",
          requestBody: IMPORT_BODY,
        },
      },
    );
