import { MEDIA_TYPE_KEY } from "../models/media-type.ts";
import { NO_VALIDATE_KEY } from "./unchecked-response.ts";

type Json = Record<string, unknown>;

/**
 * The generator files every response body under `application/json` (or `text/plain` for a bare
 * string). A schema marked `sentAs(type, …)` (src/models/media-type.ts) is filed under its own media
 * type instead: problem documents under `application/problem+json`, the CRM's SOAP acknowledgement
 * under `text/xml`; the members of a union each under their own. The marks go, and so does the mark
 * of a response not checked per request (src/http/unchecked-response.ts).
 */
export function fileByMediaType(
  content: Record<string, { schema?: Json }>,
): Record<string, { schema?: Json }> {
  const out: Record<string, { schema?: Json }> = {};
  const add = (mediaType: string, schema: Json) => {
    const existing = out[mediaType]?.schema;
    out[mediaType] = { schema: existing ? { anyOf: [...alternatives(existing), schema] } : schema };
  };
  for (const [mediaType, media] of Object.entries(content)) {
    const schema = media.schema;
    if (!schema) {
      out[mediaType] = media;
      continue;
    }
    const members = Array.isArray(schema.anyOf) ? (schema.anyOf as Json[]) : undefined;
    if (members?.some(isMarked)) {
      // A union of bodies sent as different media types: each member under its own.
      const { anyOf: _, ...common } = schema;
      const groups = new Map<string, Json[]>();
      for (const member of members) {
        const type = mediaTypeOf(member) ?? mediaType;
        groups.set(type, [...(groups.get(type) ?? []), unmarked(member)]);
      }
      for (const [type, group] of groups)
        add(type, group.length === 1 ? { ...common, ...group[0] } : { ...common, anyOf: group });
    } else add(mediaTypeOf(schema) ?? mediaType, unmarked(schema));
  }
  return out;
}

function alternatives(schema: Json): Json[] {
  return Array.isArray(schema.anyOf) && Object.keys(schema).length === 1
    ? (schema.anyOf as Json[])
    : [schema];
}

function isMarked(schema: Json): boolean {
  return typeof schema?.[MEDIA_TYPE_KEY] === "string";
}

function mediaTypeOf(schema: Json): string | undefined {
  return isMarked(schema) ? (schema[MEDIA_TYPE_KEY] as string) : undefined;
}

function unmarked(schema: Json): Json {
  const { [MEDIA_TYPE_KEY]: _, [NO_VALIDATE_KEY]: __, ...rest } = schema;
  return rest;
}
