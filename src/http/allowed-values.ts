import { Kind, type TSchema } from "@sinclair/typebox";

/** A value a schema admits by name: a literal, an enum member, a `const`, or null. */
export type AllowedValue = string | number | boolean | null;

/** How many allowed values a message lists before it says how many more there are. */
const LISTED = 12;

/**
 * The values `schema` admits when it admits a closed set of them (a Literal, a Union of Literals,
 * possibly nested or with Null, a JSON Schema `enum` or `const`); undefined for any open schema.
 * Read from the schema at the failing path, so a message can never drift from what is checked.
 */
export function allowedValuesOf(schema: TSchema | undefined): AllowedValue[] | undefined {
  if (schema === null || typeof schema !== "object") return undefined;
  if ("const" in schema) return isAllowedValue(schema.const) ? [schema.const] : undefined;
  if (Array.isArray(schema.enum)) return schema.enum.every(isAllowedValue) ? [...schema.enum] : undefined;
  if (schema[Kind] === "Null" || (schema.type === "null" && !schema.anyOf)) return [null];
  const members = schema.anyOf ?? schema.oneOf;
  if (!Array.isArray(members) || members.length === 0) return undefined;
  const values: AllowedValue[] = [];
  for (const member of members as TSchema[]) {
    const own = allowedValuesOf(member);
    if (own === undefined) return undefined;
    for (const v of own) if (!values.includes(v)) values.push(v);
  }
  return values;
}

function isAllowedValue(value: unknown): value is AllowedValue {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

/**
 * The message of one schema fault: for a closed set, "must be one of a, b, c (got "x")" (or "must be
 * a" for a single value); else the checker's own message. `value` is echoed only when short and plain.
 */
export function faultMessage(schema: TSchema | undefined, value: unknown, message: string): string {
  const allowed = allowedValuesOf(schema);
  if (allowed === undefined || allowed.length === 0) return message;
  const listed = allowed.slice(0, LISTED).map(shown).join(", ");
  const more = allowed.length > LISTED ? ` (and ${allowed.length - LISTED} more)` : "";
  const set = allowed.length === 1 ? listed : `one of ${listed}${more}`;
  return value === undefined ? `is required: ${set}` : `must be ${set} (got ${got(value)})`;
}

function shown(value: AllowedValue): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The refused value, quoted when it is a short plain string; else only its kind. */
function got(value: unknown): string {
  if (typeof value === "string") return /^[\w .:@/-]{0,64}$/.test(value) ? JSON.stringify(value) : "a string";
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  return Array.isArray(value) ? "an array" : "an object";
}
