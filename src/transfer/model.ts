import { Type } from "@sinclair/typebox";
import { NDJSON } from "../http/ndjson.ts";
import { sentAs } from "../models/media-type.ts";

/** An export as it is answered: NDJSON, documented as one string of lines. */
export const ExportBody = sentAs(
  NDJSON,
  Type.String({
    description:
      "One JSON object a line: a header (format, version, tenant, exported_at, embedding_dims, counts), " +
      "the records ({type, key?, value}: entry, embedding, object, dead_letter, dedupe, idempotency, " +
      "connector_state, change, tombstone, counter, role), then a trailer with the counts written. " +
      "A response without its trailer was cut short.",
  }),
);

/** The import's body, read raw (line by line): documented, never validated as a whole. */
export const IMPORT_BODY = {
  description: "An export (GET /admin/tenants/{tenant_id}/export), as it was answered",
  required: true,
  content: { [NDJSON]: { schema: { type: "string" } } },
} as const;
