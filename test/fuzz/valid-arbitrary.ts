/**
 * fast-check arbitraries of values a JSON Schema of the document allows, for the positive check:
 * every keyword the document uses is honoured (types, const/enum, anyOf/oneOf/allOf, `$ref`,
 * lengths in code points, patterns, formats, bounds, items, required, additionalProperties), and
 * each value is still checked by Ajv before it is sent (doc-schemas.ts): a value the generator got
 * wrong is dropped and counted, never sent as "valid". Sizes are bounded: strings and arrays stay
 * short, but reach their maximum now and then.
 */
import fc from "fast-check";

type Json = Record<string, unknown>;
type Resolve = (schema: Json) => Json;

/** Property name → arbitrary of known values (ids that exist, loopback URLs), used most of the time. */
export type Known = Record<string, fc.Arbitrary<unknown>>;

/** Where a string goes: a header value must be visible ASCII; a path segment must not be a dot segment. */
export type StringUse = "json" | "query" | "header" | "path";

export interface ValidOptions {
  resolve: Resolve;
  known?: Known;
  use?: StringUse;
}

/** A schema no value satisfies (`not: {}`, `false`): the property is left out. */
export const NEVER = Symbol("never");

const MAX_DEPTH = 8;
/** Strings and arrays beyond their minimum by at most this much, but for the occasional maximum. */
const SLACK_CHARS = 40;
const SLACK_ITEMS = 4;
/** A maximum is generated exactly only up to this size (a 32,768-character body is the hostile corpus's job). */
const MAX_EXACT = 4_096;

export function validArbitrary(schema: Json | boolean, opts: ValidOptions, depth = 0): fc.Arbitrary<unknown> {
  if (schema === true) return fc.jsonValue({ maxDepth: 2 });
  if (schema === false || isNever(schema)) return fc.constant(NEVER);
  const s = flatten(opts.resolve(schema), opts.resolve);
  if (depth > MAX_DEPTH) return fc.constant(null);
  if ("const" in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  const members = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  if (members && !members.every(isRequiredOnly)) {
    const { anyOf: _a, oneOf: _o, ...common } = s;
    return fc.oneof(
      ...members.map((m) => validArbitrary({ ...common, ...opts.resolve(m) }, opts, depth + 1)),
    );
  }
  const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string | undefined];
  if (types.length > 1)
    return fc.oneof(...types.map((type) => validArbitrary({ ...s, type }, opts, depth + 1)));
  switch (types[0] ?? inferredType(s)) {
    case "string":
      return stringArb(s, opts.use ?? "json");
    case "integer":
      return integerArb(s);
    case "number":
      return numberArb(s);
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return arrayArb(s, opts, depth);
    case "object":
      return objectArb(s, opts, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** `not: {}`: a schema no value satisfies (the document's way of refusing a field outright). */
export function isNever(schema: Json): boolean {
  const not = schema.not as Json | undefined;
  return not !== undefined && typeof not === "object" && Object.keys(not).length === 0;
}

/** `anyOf: [{required: [a]}, {required: [b]}]` beside properties: at least one of them is required. */
function isRequiredOnly(member: Json): boolean {
  return Object.keys(member).every((k) => k === "required");
}

/** allOf merged into one schema (the document's allOf only ever adds keywords). */
function flatten(schema: Json, resolve: Resolve): Json {
  if (!Array.isArray(schema.allOf)) return schema;
  const { allOf, ...rest } = schema;
  let out: Json = rest;
  for (const member of allOf as Json[]) {
    const m = flatten(resolve(member), resolve);
    out = {
      ...out,
      ...m,
      required: [...((out.required as string[]) ?? []), ...((m.required as string[]) ?? [])],
      properties: { ...((out.properties as Json) ?? {}), ...((m.properties as Json) ?? {}) },
    };
  }
  return out;
}

function inferredType(s: Json): string | undefined {
  if (s.properties || s.additionalProperties !== undefined) return "object";
  if (s.items) return "array";
  if (s.pattern !== undefined || s.minLength !== undefined || s.maxLength !== undefined) return "string";
  return undefined;
}

// ---- strings ----

const DAY = /^\^?\[0-9\]\{4\}-/;

function stringArb(s: Json, use: StringUse): fc.Arbitrary<string> {
  const min = (s.minLength as number | undefined) ?? (use === "path" ? 1 : 0);
  const max = (s.maxLength as number | undefined) ?? Number.POSITIVE_INFINITY;
  const fits = (v: string) => {
    const n = [...v].length;
    return n >= min && n <= max && sendable(v, use);
  };
  const pattern = typeof s.pattern === "string" ? s.pattern : undefined;
  const format = s.format as string | undefined;
  const dated = pattern !== undefined && DAY.test(pattern);
  if (format === "date-time" || (format === undefined && dated && pattern.includes("[Tt ]")))
    return fc
      .oneof({ weight: 3, arbitrary: instantArb() }, { weight: 1, arbitrary: patternArb(pattern) })
      .filter(fits);
  if (format === "date" || dated)
    return fc
      .oneof(
        { weight: 3, arbitrary: instantArb().map((t) => t.slice(0, 10)) },
        { weight: 1, arbitrary: patternArb(pattern) },
      )
      .filter(fits);
  if (pattern) return patternArb(pattern).filter(fits);
  if (format === "uri") return fc.webUrl({ withQueryParameters: true }).filter(fits);
  return freeText(min, max, use).filter(fits);
}

function patternArb(pattern: string | undefined): fc.Arbitrary<string> {
  if (!pattern) return fc.string();
  const re = new RegExp(pattern, "u");
  try {
    return fc.stringMatching(re);
  } catch {
    // A class fast-check cannot enumerate (`[^\p{Cc}…]`): printable text, kept when it matches.
    return fc
      .oneof(
        fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: SLACK_CHARS }),
        fc.string({ unit: "grapheme-composite", minLength: 1, maxLength: SLACK_CHARS }),
        fc.string({ unit: "binary", minLength: 1, maxLength: SLACK_CHARS }),
      )
      .filter((v) => re.test(v));
  }
}

/** Real instants, in the forms RFC 3339 allows (Z or an offset, with or without fractions). */
function instantArb(): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.date({
        min: new Date("1970-01-01T00:00:00Z"),
        max: new Date("2199-12-31T00:00:00Z"),
        noInvalidDate: true,
      }),
      fc.constantFrom("Z", "z", "+00:00", "+05:30", "-08:00"),
      fc.boolean(),
    )
    .map(([d, zone, fraction]) => {
      const iso = d.toISOString();
      const base = fraction ? iso.slice(0, 23) : iso.slice(0, 19);
      return `${base}${zone}`;
    });
}

function freeText(min: number, max: number, use: StringUse): fc.Arbitrary<string> {
  const upper = Math.min(max, min + SLACK_CHARS);
  const units: Array<{ weight: number; unit: "grapheme-ascii" | "grapheme-composite" | "binary" }> =
    use === "header"
      ? [{ weight: 1, unit: "grapheme-ascii" }]
      : [
          { weight: 4, unit: "grapheme-ascii" },
          { weight: 2, unit: "grapheme-composite" },
          { weight: 1, unit: "binary" },
        ];
  const arbs = units.map(({ weight, unit }) => ({
    weight,
    arbitrary: fc.string({ unit, minLength: min, maxLength: upper }),
  }));
  if (Number.isFinite(max) && max <= MAX_EXACT && max > upper)
    arbs.push({
      weight: 1,
      arbitrary: fc.string({ unit: "grapheme-ascii", minLength: max, maxLength: max }),
    });
  return fc.oneof(...arbs);
}

/** What HTTP lets through unchanged: header values are visible ASCII, path segments are not dots. */
function sendable(v: string, use: StringUse): boolean {
  if (use === "header") return /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/.test(v);
  if (use === "path") return v !== "." && v !== "..";
  return true;
}

// ---- numbers ----

function bounds(
  s: Json,
  floor: number,
  ceiling: number,
): { min: number; max: number; exMin: boolean; exMax: boolean } {
  const exMin = typeof s.exclusiveMinimum === "number";
  const exMax = typeof s.exclusiveMaximum === "number";
  const min = exMin ? (s.exclusiveMinimum as number) : ((s.minimum as number | undefined) ?? floor);
  const max = exMax ? (s.exclusiveMaximum as number) : ((s.maximum as number | undefined) ?? ceiling);
  return { min, max, exMin, exMax };
}

function integerArb(s: Json): fc.Arbitrary<number> {
  const b = bounds(s, -1_000_000, 1_000_000);
  const min = Math.max(Math.ceil(b.exMin ? b.min + 1e-9 : b.min), Number.MIN_SAFE_INTEGER);
  const max = Math.min(Math.floor(b.exMax ? b.max - 1e-9 : b.max), Number.MAX_SAFE_INTEGER);
  const step = (s.multipleOf as number | undefined) ?? 1;
  if (step === 1) return fc.integer({ min, max });
  return fc.integer({ min: Math.ceil(min / step), max: Math.floor(max / step) }).map((k) => k * step);
}

function numberArb(s: Json): fc.Arbitrary<number> {
  const b = bounds(s, -1e15, 1e15);
  return fc
    .oneof(
      { weight: 3, arbitrary: fc.double({ min: Math.max(b.min, -1), max: Math.min(b.max, 1), noNaN: true }) },
      {
        weight: 1,
        arbitrary: fc.double({
          min: b.min,
          max: b.max,
          minExcluded: b.exMin,
          maxExcluded: b.exMax,
          noNaN: true,
          noDefaultInfinity: true,
        }),
      },
    )
    .filter(
      (x) => Number.isFinite(x) && (b.exMin ? x > b.min : x >= b.min) && (b.exMax ? x < b.max : x <= b.max),
    );
}

// ---- arrays and objects ----

function arrayArb(s: Json, opts: ValidOptions, depth: number): fc.Arbitrary<unknown[]> {
  const items = validArbitrary((s.items as Json | undefined) ?? true, opts, depth + 1).filter(
    (v) => v !== NEVER,
  );
  const minLength = (s.minItems as number | undefined) ?? 0;
  const max = (s.maxItems as number | undefined) ?? Number.POSITIVE_INFINITY;
  const maxLength = Math.min(max, minLength + SLACK_ITEMS);
  if (s.uniqueItems === true)
    return fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) });
  return fc.array(items, { minLength, maxLength });
}

const ABSENT = Symbol("absent");
/** The name of the unknown property the positive check adds where the document allows one. */
export const EXTRA_PROPERTY = "x_fuzz_extra";

function objectArb(s: Json, opts: ValidOptions, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = (s.properties ?? {}) as Record<string, Json | boolean>;
  const required = new Set((s.required ?? []) as string[]);
  const oneOfRequired = ((s.anyOf ?? s.oneOf) as Json[] | undefined)?.map((m) => m.required as string[]);
  const extra = s.additionalProperties;
  if (Object.keys(properties).length === 0 && (extra === undefined || extra === true))
    return fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) {
    const fromSchema = validArbitrary(property, { ...opts, use: "json" }, depth + 1);
    const known = knownOf(opts, name, property);
    const value = known
      ? fc.oneof({ weight: 3, arbitrary: known }, { weight: 1, arbitrary: fromSchema })
      : fromSchema;
    model[name] = required.has(name) ? value : fc.oneof(fc.constant(ABSENT), value);
  }
  const extraArb =
    extra === false
      ? fc.constant(undefined)
      : fc.oneof(
          { weight: 4, arbitrary: fc.constant(undefined) },
          {
            weight: 1,
            arbitrary: validArbitrary(
              typeof extra === "object" ? (extra as Json) : true,
              { ...opts, use: "json" },
              depth + 1,
            ),
          },
        );
  const pick = oneOfRequired?.length ? fc.nat({ max: oneOfRequired.length - 1 }) : fc.constant(-1);
  return fc
    .tuple(fc.record(model), extraArb, pick, fc.record(fillers(properties, opts, depth)))
    .map(([record, added, which, filled]) => {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(record)) if (v !== ABSENT && v !== NEVER) out[k] = v;
      // One of the alternatives' required properties, when the schema asks for at least one.
      for (const name of which >= 0 ? (oneOfRequired![which] ?? []) : [])
        if (!(name in out) && filled[name] !== NEVER) out[name] = filled[name];
      if (added !== undefined && added !== NEVER && !(EXTRA_PROPERTY in properties))
        out[EXTRA_PROPERTY] = added;
      dropExcluded(out, s, required);
      return out;
    });
}

/**
 * `dependentSchemas: {a: {not: {required: [b]}}}` (a and b not both): b goes when a is there. Other
 * dependent schemas are left to Ajv, which drops a value that misses them.
 */
function dropExcluded(out: Record<string, unknown>, s: Json, required: Set<string>): void {
  for (const [name, dependent] of Object.entries((s.dependentSchemas ?? {}) as Record<string, Json>)) {
    const excluded = ((dependent.not as Json | undefined)?.required ?? []) as string[];
    if (name in out) for (const other of excluded) if (!required.has(other)) delete out[other];
  }
}

/** A value for every property, for alternatives that require one the record left out. */
function fillers(
  properties: Record<string, Json | boolean>,
  opts: ValidOptions,
  depth: number,
): Record<string, fc.Arbitrary<unknown>> {
  const out: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties))
    out[name] =
      knownOf(opts, name, property) ?? validArbitrary(property, { ...opts, use: "json" }, depth + 1);
  return out;
}

/**
 * The known values of a property, fitted to its type: a list (a token's roles) given to a text
 * property (the dashboard's mint form types them comma-separated) is sent joined.
 */
function knownOf(
  opts: ValidOptions,
  name: string,
  property: Json | boolean,
): fc.Arbitrary<unknown> | undefined {
  const known = opts.known?.[name];
  if (!known || typeof property !== "object" || property.type !== "string") return known;
  return known.map((v) => (Array.isArray(v) ? v.join(", ") : v));
}
