import {
  FormatRegistry,
  type TLiteral,
  type TProperties,
  type TSchema,
  type TUnion,
  Type,
} from "@sinclair/typebox";
import { checkedKind } from "./checked-kind.ts";

/**
 * RFC 3339 with an explicit offset; normalised to UTC milliseconds by `toUtcTimestamp`. ASCII digits
 * (`[0-9]`, not `\d`, which some validators read as any Unicode digit), months, hours, minutes and
 * seconds in range (no leap second); the day is checked against its month by `parseTimestamp`.
 */
export const RFC3339 =
  /^[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])[Tt ](?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]{1,9})?(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])$/;

const timestamp = checkedKind<string>(
  "Timestamp",
  (_schema, value) => typeof value === "string" && value.length <= 40 && parseTimestamp(value) !== undefined,
  () => "Expected an RFC 3339 timestamp with an offset, of a real day (2026-05-01T09:30:00Z)",
);

/** A timestamp a request gives: the document's `format: date-time` and pattern, checked as `parseTimestamp` reads it. */
export const Timestamp = timestamp({
  type: "string",
  format: "date-time",
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

/** A number as JSON writes it (`20`, `1e2`, `20.0`): a query integer is one whose value is an integer. */
const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

const queryInteger = checkedKind<number>(
  "QueryInteger",
  (schema, value) => {
    const n = typeof value === "string" && JSON_NUMBER.test(value) ? Number(value) : value;
    return (
      typeof n === "number" &&
      Number.isSafeInteger(n) &&
      n >= (schema.minimum as number) &&
      n <= (schema.maximum as number)
    );
  },
  (schema) => `Expected an integer from ${schema.minimum} to ${schema.maximum}`,
);

/**
 * An integer in a query string: the document says `type: integer` with its bounds, and the service
 * takes a number written as JSON writes it whose value is such an integer (`?limit=20`, `1e2`) and
 * hands the route a number. (Elysia's `t.Integer`
 * is a union of a string and an integer, which leaked into the document and its refusals.)
 */
export function QueryInteger(options: { minimum: number; maximum: number; default?: number }) {
  return Type.Transform(queryInteger({ ...options, type: "integer" }))
    .Decode((value) => Number(value))
    .Encode((value) => value);
}

/** A query string's parameters: those named are checked, others are ignored (Elysia would refuse them). */
export function QueryObject<T extends TProperties>(properties: T) {
  return Type.Object(properties, { additionalProperties: true });
}

/**
 * `?cursor=`: opaque, the `next_cursor` of the previous page (base64url, at most 64 characters). An
 * empty value is a value like any other, and not one this API returns: omit the parameter for the
 * first page. Any other cursor is refused (422).
 */
export const Cursor = Type.String({
  pattern: "^[A-Za-z0-9_-]{1,64}$",
  description: "The next_cursor of the previous page (opaque; omit for the first page)",
});

/** `?limit=&cursor=` of a paged list. */
export function PageQuery(max: number, fallback: number) {
  return QueryObject({
    limit: Type.Optional(QueryInteger({ minimum: 1, maximum: max, default: fallback })),
    cursor: Type.Optional(Cursor),
  });
}

/** A page's continuation: an opaque cursor, or null on the last page. */
export const NextCursor = Type.Union([Type.String(), Type.Null()]);

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
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0–99 as 1900–1999 (0000 is a leap year, 1900 not).
  const lastDay = new Date(0);
  lastDay.setUTCFullYear(year, month, 0);
  const daysInMonth = lastDay.getUTCDate();
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
