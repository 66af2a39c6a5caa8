import { Elysia } from "elysia";
import { UnsupportedMediaType } from "../errors/domain-errors.ts";
import { RAW_BODY } from "../http/body.ts";
import type { HttpKit } from "../http/http-kit.ts";
import { NDJSON } from "../http/ndjson.ts";
import { QueryObject } from "../models/common.ts";
import { problems } from "../models/problem.ts";
import { SCOPE_FILTERS } from "../models/scope.ts";
import { TenantParams } from "../models/tenant.ts";
import { ImportReply } from "../models/tenant-export.ts";
import { ExportBody, IMPORT_BODY } from "./model.ts";
import type { TransferService } from "./service.ts";

export interface TransferRouteDeps {
  http: HttpKit;
  transfer: TransferService;
}

const tags = ["admin"];

/** Export and import of a whole tenant (admin only). */
export const transferRoutes = ({ http, transfer }: TransferRouteDeps) =>
  new Elysia({ name: "routes.admin.transfer", prefix: "/admin/tenants" })
    .use(http.authPlugin)
    .use(http.tenantParam)
    .get(
      "/:tenant_id/export",
      async ({ tenant, principal, query }) => {
        const tenantId = tenant.tenant_id;
        const { counts, stream } = await transfer.export(tenantId, query, principal.sub);
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
        return transfer.import(tenantId, request.body, principal.sub);
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
