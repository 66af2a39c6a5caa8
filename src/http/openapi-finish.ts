import { OptionalKind } from "@sinclair/typebox";
import { hoistNamedSchemas } from "./openapi-components.ts";
import { type EmbeddingRule, writeEmbeddingRule } from "./openapi-embedding.ts";
import { declareResponseHeaders } from "./openapi-headers.ts";
import { fileByMediaType } from "./openapi-media-types.ts";

type Json = Record<string, unknown>;

/**
 * The service's own base: the paths are relative to where the document was fetched from, so the
 * viewer's "Try it out" and generated clients call this service, behind any proxy or port.
 */
export const SERVERS = [{ url: "/", description: "This service (where this document was fetched from)" }];

/**
 * The one transform of the generated document (a copy; the generator's object is left alone):
 *
 * - Media types (src/http/openapi-media-types.ts): each body under the media type it is sent as.
 * - Empty bodies. For a status declared `Type.Null()` (no body: 202) the generator writes the
 *   schema's `type` and `description` where the media types belong; such a response has no content.
 * - 401s name their `WWW-Authenticate` challenge (docs/auth.md), which no route schema can declare.
 * - Response headers (src/http/openapi-headers.ts): `X-Request-Id`, `Retry-After`, `Location`, …
 * - Optional bodies. The generator marks every request body required; a route whose body schema
 *   is `Type.Optional(…)` takes a request without one (`requestBody.required: false`).
 * - Vectors (src/http/openapi-embedding.ts): the configured dimension, and when writes take one.
 * - Named schemas (src/http/openapi-components.ts): each under `components.schemas`, referred to.
 * - `servers`: this service.
 */
export function finishDocument(generated: Json, embedding?: EmbeddingRule): Json {
  // Read before the copy: the mark of an optional schema is a symbol, which structuredClone drops.
  const optional = optionalBodies(generated);
  const doc = structuredClone(generated);
  for (const [path, method] of optional) {
    const body = ((doc.paths as Record<string, Record<string, Json>>)[path]?.[method]?.requestBody ??
      {}) as Json;
    body.required = false;
  }
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Json>)) {
    for (const operation of Object.values(item) as Json[]) {
      const responses = (operation?.responses ?? {}) as Record<string, Json>;
      if (responses["401"]) responses["401"].headers = challengeHeader(operation);
      for (const response of Object.values(responses)) {
        const content = response.content as Record<string, unknown> | undefined;
        if (!content) continue;
        if (typeof content.type === "string") {
          delete response.content;
          continue;
        }
        response.content = fileByMediaType(content as Record<string, { schema?: Json }>);
      }
    }
  }
  declareResponseHeaders(doc);
  writeEmbeddingRule(doc, embedding);
  hoistNamedSchemas(doc);
  return { openapi: doc.openapi, info: doc.info, servers: SERVERS, ...doc };
}

/** Each operation (`[path, method]`) whose request body schema is `Type.Optional(…)`. */
function optionalBodies(doc: Json): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Record<string, Json>>))
    for (const [method, operation] of Object.entries(item)) {
      const content = ((operation?.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>;
      const schemas = Object.values(content).map((media) => media?.schema as { [OptionalKind]?: string });
      if (schemas.length > 0 && schemas.every((schema) => schema?.[OptionalKind] === "Optional"))
        out.push([path, method]);
    }
  return out;
}

/** The 401's challenge: the API's realm, or on the webhook route the bearer sources' own. */
function challengeHeader(operation: Json): Json {
  const webhook = Array.isArray(operation.tags) && operation.tags.includes("webhooks");
  const description = webhook
    ? 'Sent by the sources that authenticate with a bearer token (data, warehouse, mail) only: `Bearer realm="webhooks"`, with `error="invalid_token"` when a token was sent'
    : 'RFC 6750 challenge: `Bearer realm="memory-runtime"` without a token, with `error="invalid_token"` when one was refused';
  return { "WWW-Authenticate": { description, schema: { type: "string" } } };
}
