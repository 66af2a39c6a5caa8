/**
 * fast-check arbitraries from the JSON Schemas of the OpenAPI document: values a route's schema
 * accepts (mostly; patterns and lengths are honoured loosely, which is itself useful), so that
 * generated requests get past validation and reach the handlers. Fields named in `overrides` draw
 * from the given arbitraries instead (URLs that must stay on loopback, ids that must exist).
 */
import fc from "fast-check";

type Json = Record<string, unknown>;

export type Overrides = Record<string, fc.Arbitrary<unknown>>;

const MAX_DEPTH = 6;
/** Keeps generated strings and arrays small: size is the hostile corpus's job, not this one's. */
const MAX_STRING = 80;
const MAX_ITEMS = 6;

export function arbitraryOf(schema: Json, overrides: Overrides = {}, depth = 0): fc.Arbitrary<unknown> {
  if (depth > MAX_DEPTH) return fc.constant(null);
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const members = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (members) {
    const { anyOf: _a, oneOf: _o, ...common } = schema;
    return fc.oneof(...members.map((m) => arbitraryOf({ ...common, ...m }, overrides, depth + 1)));
  }
  if (Array.isArray(schema.type))
    return fc.oneof(...schema.type.map((type) => arbitraryOf({ ...schema, type }, overrides, depth + 1)));
  switch (schema.type) {
    case "string":
      return stringOf(schema);
    case "integer":
      return integerOf(schema);
    case "number":
      return numberOf(schema);
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return arrayOf(schema, overrides, depth);
    case "object":
      return objectOf(schema, overrides, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Real instants (a timestamp pattern alone also makes days like 2026-00-99). */
const timestampArb = fc
  .date({ min: new Date("1990-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true })
  .map((d) => d.toISOString());

function stringOf(schema: Json): fc.Arbitrary<string> {
  if (schema.format === "integer") return fc.integer({ min: -5, max: 2_000 }).map(String);
  if (typeof schema.pattern === "string" && schema.pattern.includes("\\d{4}-\\d{2}-\\d{2}"))
    return fc.oneof(
      { weight: 4, arbitrary: timestampArb },
      { weight: 1, arbitrary: fc.stringMatching(new RegExp(schema.pattern)) },
    );
  if (typeof schema.pattern === "string") return fc.stringMatching(new RegExp(schema.pattern));
  const minLength = (schema.minLength as number | undefined) ?? 0;
  const maxLength = Math.max(
    minLength,
    Math.min((schema.maxLength as number | undefined) ?? MAX_STRING, MAX_STRING),
  );
  // Printable text mostly; any code point (NUL, controls, astral) now and then.
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ minLength, maxLength, unit: "grapheme" }) },
    { weight: 1, arbitrary: fc.string({ minLength, maxLength, unit: "binary" }) },
  );
}

function integerOf(schema: Json): fc.Arbitrary<number> {
  const min = Math.max((schema.minimum as number | undefined) ?? -1_000_000, Number.MIN_SAFE_INTEGER);
  const max = Math.min((schema.maximum as number | undefined) ?? 1_000_000, Number.MAX_SAFE_INTEGER);
  return fc.integer({ min, max });
}

function numberOf(schema: Json): fc.Arbitrary<number> {
  const min = (schema.minimum as number | undefined) ?? -1e15;
  const max = (schema.maximum as number | undefined) ?? 1e15;
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

function arrayOf(schema: Json, overrides: Overrides, depth: number): fc.Arbitrary<unknown[]> {
  const items = (schema.items as Json | undefined) ?? {};
  const minLength = (schema.minItems as number | undefined) ?? 0;
  const maxLength = Math.max(
    minLength,
    Math.min((schema.maxItems as number | undefined) ?? MAX_ITEMS, MAX_ITEMS),
  );
  return fc.array(arbitraryOf(items, overrides, depth + 1), { minLength, maxLength });
}

/** Marks an optional property left out (fc.record would include each one half of the time). */
const ABSENT = Symbol("absent");

function objectOf(schema: Json, overrides: Overrides, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required ?? []) as string[]);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) {
    const value = overrides[name] ?? arbitraryOf(property, overrides, depth + 1);
    // Optional fields are rare, so that most generated bodies are valid and reach the handler.
    model[name] = required.has(name)
      ? value
      : fc.oneof({ weight: 4, arbitrary: fc.constant(ABSENT) }, { weight: 1, arbitrary: value });
  }
  const known = fc
    .record(model)
    .map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== ABSENT)));
  if (schema.additionalProperties !== true || Object.keys(properties).length > 0) return known;
  // A free-form object (an entry's `data`): any JSON of a few levels.
  return fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 });
}
