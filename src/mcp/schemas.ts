/**
 * The JSON Schemas MCP tools advertise, derived from the TypeBox schemas the HTTP routes validate
 * with, so a tool and its route cannot drift apart. TypeBox schemas are JSON Schema already; they only
 * carry TypeBox's own bookkeeping under symbol keys, which a JSON round trip drops.
 */
import { type TSchema, Type } from "@sinclair/typebox";
import { CATEGORIES, type Category } from "../models/category.ts";
import { LiteralUnion, Sha8, StrictObject } from "../models/common.ts";
import {
  ENTRY_INPUT,
  IdempotencyKey,
  ListEntriesQuery,
  OutcomeInput,
  ReadEntryQuery,
} from "../models/entry.ts";
import { SCHEMA_NAME_KEY } from "../models/schema-name.ts";
import { DedupeMode } from "../models/similar.ts";

/** An MCP input or output schema: the protocol requires an object at the top. */
export type ObjectSchema = { type: "object"; properties?: Record<string, object>; required?: string[] } & {
  [key: string]: unknown;
};

/**
 * A TypeBox object schema as plain JSON Schema (symbol keys dropped, literal unions as enums, the
 * OpenAPI document's schema names dropped).
 */
export function jsonSchemaOf(schema: TSchema): ObjectSchema {
  const json = JSON.parse(JSON.stringify(schema), plainJson) as ObjectSchema;
  if (json.type !== "object") throw new Error("an MCP tool schema must describe an object");
  return json;
}

/**
 * TypeBox writes a union of string literals as `anyOf` of `const`s; `enum` says the same more
 * plainly, and it is the form agent clients render as a choice. The OpenAPI document's schema
 * names (src/models/schema-name.ts) mean nothing to an MCP client and go.
 */
function plainJson(key: string, value: unknown): unknown {
  if (key === SCHEMA_NAME_KEY) return undefined;
  if (!isObject(value) || !Array.isArray(value.anyOf)) return value;
  const options = value.anyOf as unknown[];
  if (!options.every((o) => isObject(o) && typeof o.const === "string" && Object.keys(o).length <= 2))
    return value;
  const { anyOf: _, ...rest } = value;
  return { ...rest, type: "string", enum: options.map((o) => (o as { const: string }).const) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export const CategoryArg = LiteralUnion(CATEGORIES, { description: "The entry's category (singular)" });

/** The `Idempotency-Key` header of the write routes, as an argument of the write tools. */
export const IdempotencyArg = Type.Optional(IdempotencyKey);

/** `?dedupe=similar` of the write routes, as an argument of the write tools. */
export const DedupeArg = Type.Optional(DedupeMode);

/** What memory_add checks before the body: its category (which picks the body's schema) and key. */
export const CategoryOnly = Type.Object(
  { category: CategoryArg, idempotency_key: IdempotencyArg, dedupe: DedupeArg },
  { additionalProperties: true },
);

/** outcome_record: the body of `POST /memory/outcomes` and its idempotency key. */
export const OutcomeArgs = StrictObject({
  ...OutcomeInput.properties,
  idempotency_key: IdempotencyArg,
  dedupe: DedupeArg,
});

/** memory_get: the path of `GET /memory/{category}/{sha8}` and its query, as arguments. */
export const GetArgs = StrictObject({
  category: CategoryArg,
  id: Sha8,
  include: ReadEntryQuery.properties.include,
});

/** memory_retract and memory_history: which entry, as the path of its routes names it. */
export const EntryRef = StrictObject({ category: CategoryArg, id: Sha8 });

/**
 * memory_list: `category` and the query of `GET /memory/{category}`. A query string carries `limit`
 * as digits, so the route's schema accepts a string of them; JSON arguments carry a number, and a
 * string there would reach the actor unconverted: here it is a plain integer with the route's bounds.
 * Unlike a query string, where unknown parameters are ignored, an unknown argument is refused: an
 * agent's misspelt filter should fail, not widen the list.
 */
export const ListArgs = StrictObject({
  category: CategoryArg,
  ...ListEntriesQuery.properties,
  limit: Type.Optional(Type.Integer(boundsOf(ListEntriesQuery.properties.limit))),
});

function boundsOf(schema: object): { minimum: number; maximum: number; default?: number } {
  const { minimum, maximum, default: fallback } = schema as Record<string, number>;
  return { minimum: minimum ?? 1, maximum: maximum ?? 500, default: fallback };
}

/**
 * memory_add's arguments as clients see them: `category` plus the union of every category's fields,
 * each field's description naming the categories it belongs to. A `oneOf` per category would be
 * exact, but agent clients and model APIs commonly refuse a top-level `oneOf`; the exact check, the
 * route's own per-category schema, runs on the server.
 */
export function anyCategoryInputSchema(): ObjectSchema {
  const fields = new Map<
    string,
    { schema: Record<string, unknown>; in: Category[]; requiredIn: Category[] }
  >();
  for (const category of CATEGORIES) {
    const json = jsonSchemaOf(ENTRY_INPUT[category]);
    for (const [name, schema] of Object.entries(json.properties ?? {})) {
      const field = fields.get(name) ?? { schema: schema as Record<string, unknown>, in: [], requiredIn: [] };
      // A name two categories give different rules (a relationship's `subject` is its triple's,
      // any other's is its scope id): either rule is accepted here, the category's own on the server.
      if (fields.has(name) && JSON.stringify(field.schema) !== JSON.stringify(schema))
        field.schema = eitherOf(field.schema, schema as Record<string, unknown>, category);
      field.in.push(category);
      if (json.required?.includes(name)) field.requiredIn.push(category);
      fields.set(name, field);
    }
  }
  const routing = jsonSchemaOf(CategoryOnly).properties!;
  const properties: Record<string, object> = {
    category: routing.category!,
    idempotency_key: routing.idempotency_key!,
    dedupe: routing.dedupe!,
  };
  for (const [name, field] of fields) properties[name] = withDescription(field);
  return {
    type: "object",
    description: "The body of POST /memory/{category} plus its category",
    properties,
    required: [
      "category",
      ...[...fields].filter(([, f]) => f.requiredIn.length === CATEGORIES.length).map(([n]) => n),
    ],
    additionalProperties: false,
  };
}

/** Two rules for one field name: either, each saying which categories it is for. */
function eitherOf(
  known: Record<string, unknown>,
  other: Record<string, unknown>,
  category: Category,
): Record<string, unknown> {
  const options = Array.isArray(known.anyOf) ? known.anyOf : [known];
  const described = { ...other, description: `${category}: ${other.description ?? "its own rule"}` };
  return { anyOf: [...options, described] };
}

/** The field's schema, its description saying which categories have it and which require it. */
function withDescription(field: { schema: Record<string, unknown>; in: Category[]; requiredIn: Category[] }) {
  const parts = typeof field.schema.description === "string" ? [field.schema.description] : [];
  if (field.in.length < CATEGORIES.length) parts.push(`${field.in.join(", ")} only`);
  const partly = field.requiredIn.length > 0 && field.requiredIn.length < CATEGORIES.length;
  if (partly) parts.push(`required for ${field.requiredIn.join(", ")}`);
  return parts.length > 0 ? { ...field.schema, description: parts.join("; ") } : field.schema;
}
