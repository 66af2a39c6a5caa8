import { MEDIA_TYPE_KEY } from "../models/media-type.ts";
import { SCHEMA_NAME_KEY } from "../models/schema-name.ts";
import { NO_VALIDATE_KEY } from "./unchecked-response.ts";

type Json = Record<string, unknown>;

/**
 * Keywords that describe a schema without constraining it: a named schema used with another
 * description (each status's problem document, say) is still the same schema, referred to with
 * that description beside its `$ref` (OpenAPI 3.1 allows siblings of `$ref`).
 */
const ANNOTATIONS = new Set([
  "description",
  "title",
  "examples",
  "example",
  "default",
  "deprecated",
  "$comment",
]);

const REF_PREFIX = "#/components/schemas/";

interface Named {
  /** The schema without its annotations, each named schema inside it already a `$ref`. */
  core: Json;
  /** `core` as canonical JSON: two schemas of one name must agree on it. */
  key: string;
  /** Each place it occurs: the `$ref` object left there, carrying that place's annotations. */
  refs: Json[];
}

/**
 * Every schema marked `named(...)` (src/models/schema-name.ts) moves to `components.schemas` and
 * each occurrence becomes a `$ref` to it, innermost first (an entry page refers to the entry).
 * Annotations every occurrence shares stay on the component; the others stay beside each `$ref`.
 * Two different schemas under one name are a programming error: the document is not served.
 */
export function hoistNamedSchemas(doc: Json): void {
  const found = new Map<string, Named>();
  const visit = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(visit);
    if (!isObject(value)) return value;
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) out[k] = visit(v);
    const name = out[SCHEMA_NAME_KEY];
    if (typeof name !== "string") return out;
    const core: Json = {};
    const ref: Json = { $ref: `${REF_PREFIX}${name}` };
    for (const [k, v] of Object.entries(out)) {
      // Marks of the generator's input, not of the schema: the media type it is filed under (the
      // response's, src/http/openapi-media-types.ts) and whether answers are checked.
      if (k === SCHEMA_NAME_KEY || k === NO_VALIDATE_KEY || k === MEDIA_TYPE_KEY) continue;
      if (ANNOTATIONS.has(k)) ref[k] = v;
      else core[k] = v;
    }
    const key = canonical(core);
    const known = found.get(name);
    if (known && known.key !== key)
      throw new Error(
        `OpenAPI document: two different schemas are named ${name}: ${difference(known.key, key)}`,
      );
    if (known) known.refs.push(ref);
    else found.set(name, { core, key, refs: [ref] });
    return ref;
  };
  doc.paths = visit(doc.paths);
  const components = (doc.components ?? {}) as Json;
  const schemas = (components.schemas ?? {}) as Json;
  components.schemas = schemas;
  doc.components = components;
  for (const name of [...found.keys()].sort()) {
    const { core, refs } = found.get(name)!;
    const shared = sharedAnnotations(refs);
    schemas[name] = { ...shared, ...core };
    for (const ref of refs) for (const k of Object.keys(shared)) delete ref[k];
  }
}

/** The annotations every occurrence carries, with the same value. */
function sharedAnnotations(refs: Json[]): Json {
  const [first, ...rest] = refs;
  const shared: Json = {};
  for (const [k, v] of Object.entries(first ?? {})) {
    if (k === "$ref") continue;
    const json = JSON.stringify(v);
    if (rest.every((ref) => k in ref && JSON.stringify(ref[k]) === json)) shared[k] = v;
  }
  return shared;
}

/** JSON with object keys sorted: equal for equal schemas whatever order their keys were written in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (!isObject(value)) return JSON.stringify(value);
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
}

/** Where two canonical forms part (for the error's message). */
function difference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 80);
  return `…${a.slice(from, i + 80)}… against …${b.slice(from, i + 80)}…`;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null;
}
