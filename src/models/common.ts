import {
  FormatRegistry,
  type TLiteral,
  type TProperties,
  type TSchema,
  type TUnion,
  Type,
} from "@sinclair/typebox";
import { t } from "elysia";

/** RFC 3339 with an explicit offset; normalised to UTC milliseconds by `toUtcTimestamp`. */
export const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

export const Timestamp = Type.String({
  pattern: RFC3339.source,
  maxLength: 40,
  description: "RFC 3339 timestamp",
});
export const Sha8 = Type.String({ pattern: "^[0-9a-f]{8}$", description: "SHA-8 entry id" });

// Response schemas use `date-time`; TypeBox refuses formats it does not know, so it is registered
// here rather than relying on another library having done it first.
if (!FormatRegistry.Has("date-time"))
  FormatRegistry.Set("date-time", (value) => parseTimestamp(value) !== undefined);

/** A time as the API answers it: RFC 3339 in UTC with milliseconds. */
export const IsoTime = Type.String({ format: "date-time", description: "RFC 3339, UTC, milliseconds" });

/**
 * An integer in a query string. Elysia's own integer type accepts the digits of a query parameter
 * and converts them (a plain TypeBox integer would refuse every string).
 */
export function QueryInteger(options: { minimum: number; maximum: number; default?: number }) {
  return t.Integer(options);
}

/** A query string's parameters: those named are checked, others are ignored (Elysia would refuse them). */
export function QueryObject<T extends TProperties>(properties: T) {
  return Type.Object(properties, { additionalProperties: true });
}

/** `?limit=&cursor=` of a paged list. */
export function PageQuery(max: number, fallback: number) {
  return QueryObject({
    limit: Type.Optional(QueryInteger({ minimum: 1, maximum: max, default: fallback })),
    cursor: Type.Optional(Type.String({ maxLength: 128, description: "next_cursor of the previous page" })),
  });
}

/** A page's continuation: an opaque cursor, or null on the last page. */
export const NextCursor = Type.Union([Type.String(), Type.Null()]);

export const SHA8_RE = /^[0-9a-f]{8}$/;
export const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/;
export const OPERATOR_TENANT_ID = "00000000000000000000000000";

/** Parses an RFC 3339 string to epoch ms, or undefined when it is not a real instant. */
export function parseTimestamp(value: string): number | undefined {
  if (!RFC3339.test(value) || !realCalendarTime(value)) return undefined;
  const ms = Date.parse(value.replace(" ", "T"));
  return Number.isFinite(ms) ? ms : undefined;
}

/** Bun's Date.parse rolls 2026-02-30 over to March 2; an impossible date must be refused instead. */
function realCalendarTime(value: string): boolean {
  const num = (from: number, len: number) => Number(value.slice(from, from + len));
  const [year, month, day] = [num(0, 4), num(5, 2), num(8, 2)];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth &&
    num(11, 2) <= 23 &&
    num(14, 2) <= 59 &&
    num(17, 2) <= 59
  );
}

export function isoOf(ms: number): string {
  return new Date(ms).toISOString();
}

type Literals<T extends readonly string[]> = { -readonly [K in keyof T]: TLiteral<T[K]> };

/**
 * A union of string literals from a constant list, typed as a tuple: a union built from a plain
 * array has a static type of `never` to Elysia's inference.
 */
export function LiteralUnion<const T extends readonly string[]>(
  values: T,
  options: object = {},
): TUnion<Literals<T>> {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  ) as unknown as TUnion<Literals<T>>;
}

/** A strict object: unknown fields are a validation failure, not silently dropped. */
export function StrictObject<T extends Record<string, TSchema>>(props: T, options: object = {}) {
  return Type.Object(props, { additionalProperties: false, ...options });
}
