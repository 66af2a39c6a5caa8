/**
 * The CRM source's custom mapping file (SOURCES.md, `crm`): which category an event or sObject
 * type becomes, with `{Field}` placeholders filled from the event's fields. Validated when
 * loaded, so a bad file stops the start (or a SIGHUP reload) with a message naming the fault.
 */
import { readFileSync } from "node:fs";
import { OptionalKind, type Static, type TSchema, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { CATEGORIES } from "../../models/category.ts";
import { Chars } from "../../models/chars.ts";
import { LiteralUnion } from "../../models/common.ts";
import { TYPED_FIELDS } from "../../models/entry.ts";

const FieldValue = Type.Union([
  Type.String({ maxLength: 8192 }),
  Type.Number(),
  Type.Boolean(),
  Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 256 }),
]);

export const CrmMappingRule = Type.Object(
  {
    category: LiteralUnion(CATEGORIES),
    content: Chars(1, 32_768),
    tags: Type.Optional(Type.Array(Chars(1, 64), { maxItems: 64 })),
    fields: Type.Optional(Type.Record(Type.String({ minLength: 1 }), FieldValue)),
  },
  { additionalProperties: false },
);

export const CrmMappingFile = Type.Object(
  {
    version: Type.Literal(1),
    events: Type.Record(Type.String({ minLength: 1, maxLength: 128 }), CrmMappingRule),
  },
  { additionalProperties: false },
);

export type CrmMappingRule = Static<typeof CrmMappingRule>;
export type CrmMapping = Static<typeof CrmMappingFile>;

/** Typed fields a category's entries require (relationship: subject, predicate, object; ...). */
function requiredFields(category: CrmMappingRule["category"]): string[] {
  const props = TYPED_FIELDS[category] as Record<string, TSchema>;
  return Object.entries(props)
    .filter(([, schema]) => schema[OptionalKind] !== "Optional")
    .map(([name]) => name);
}

/** Semantic checks the schema cannot express: fields must be the category's typed fields. */
function ruleFault(name: string, rule: CrmMappingRule): string | undefined {
  const known = Object.keys(TYPED_FIELDS[rule.category]);
  const given = Object.keys(rule.fields ?? {});
  const unknown = given.find((f) => !known.includes(f));
  if (unknown) {
    const allowed = known.length > 0 ? known.join(", ") : "none";
    return `/events/${name}/fields/${unknown} is not a field of category ${rule.category} (allowed: ${allowed})`;
  }
  const missing = requiredFields(rule.category).find((f) => !given.includes(f));
  return missing ? `/events/${name}/fields/${missing} is required for category ${rule.category}` : undefined;
}

/** TypeBox says "Expected union value" for a bad literal; naming the allowed values helps more. */
function describe(schema: TSchema, message: string): string {
  const literals = Array.isArray(schema.anyOf)
    ? schema.anyOf.map((s: TSchema) => s.const).filter((c) => c !== undefined)
    : [];
  return literals.length > 0 ? `must be one of ${literals.join(", ")}` : message;
}

/** Validates the text of a mapping file; throws an Error naming the fault and the path. */
export function parseCrmMapping(text: string, pathForMessages: string): CrmMapping {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`CRM mapping ${pathForMessages}: not valid JSON (${(err as Error).message})`);
  }
  const first = Value.Errors(CrmMappingFile, json).First();
  if (first)
    throw new Error(
      `CRM mapping ${pathForMessages}: ${first.path || "/"} ${describe(first.schema, first.message)}`,
    );
  const mapping = json as CrmMapping;
  for (const [name, rule] of Object.entries(mapping.events)) {
    const fault = ruleFault(name, rule);
    if (fault) throw new Error(`CRM mapping ${pathForMessages}: ${fault}`);
  }
  return mapping;
}

/** Reads and validates a mapping file. A missing file throws too: whether that is fine is the caller's call. */
export function loadCrmMapping(path: string): CrmMapping {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "read error";
    throw Object.assign(new Error(`CRM mapping ${path}: cannot read the file (${code})`), { code });
  }
  return parseCrmMapping(text, path);
}

// ── applying a rule ─────────────────────────────────────────────────────────────────────────

export type FieldLookup = (name: string) => string | undefined;
export type FillResult<T> = { ok: true; value: T } | { ok: false; missing: string };

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_.]*)\}/g;

/** Replaces every `{Field}` in a template; the first field without a value is reported. */
export function fillTemplate(template: string, lookup: FieldLookup): FillResult<string> {
  let missing: string | undefined;
  const value = template.replace(PLACEHOLDER, (whole, name: string) => {
    const found = lookup(name);
    if (found === undefined) missing ??= name;
    return found ?? whole;
  });
  return missing === undefined ? { ok: true, value } : { ok: false, missing };
}

function isNumberSchema(schema: TSchema | undefined): boolean {
  return schema?.type === "number" || schema?.type === "integer";
}

/** A rule's `fields` with placeholders filled; numeric typed fields (amount) become numbers. */
export function fillFields(rule: CrmMappingRule, lookup: FieldLookup): FillResult<Record<string, unknown>> {
  const schemas = TYPED_FIELDS[rule.category] as Record<string, TSchema>;
  const out: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(rule.fields ?? {})) {
    const filled = fillValue(raw, lookup);
    if (!filled.ok) return filled;
    const value = filled.value;
    out[name] =
      isNumberSchema(schemas[name]) && typeof value === "string" && value.trim() !== ""
        ? Number(value)
        : value;
  }
  return { ok: true, value: out };
}

function fillValue(raw: unknown, lookup: FieldLookup): FillResult<unknown> {
  if (typeof raw === "string") return fillTemplate(raw, lookup);
  if (!Array.isArray(raw)) return { ok: true, value: raw };
  const items: string[] = [];
  for (const item of raw) {
    const filled = fillTemplate(String(item), lookup);
    if (!filled.ok) return filled;
    items.push(filled.value);
  }
  return { ok: true, value: items };
}
