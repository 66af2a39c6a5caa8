type Json = Record<string, unknown>;

export const REF_PREFIX = "#/components/schemas/";

/**
 * A copy of `value` in which every `#/components/schemas/X` reference points into one schema that
 * holds all the components as `$defs` under `$id` (how Ajv resolves the OpenAPI document's refs).
 */
export function withComponentRefs(value: unknown, id: string): unknown {
  if (Array.isArray(value)) return value.map((item) => withComponentRefs(item, id));
  if (!value || typeof value !== "object") return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value as Json))
    out[k] =
      k === "$ref" && typeof v === "string" && v.startsWith(REF_PREFIX)
        ? `${id}#/$defs/${v.slice(REF_PREFIX.length)}`
        : withComponentRefs(v, id);
  return out;
}
