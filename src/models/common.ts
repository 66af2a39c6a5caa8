import { type TSchema, Type } from "@sinclair/typebox";

/** RFC 3339 with an explicit offset; normalised to UTC milliseconds by `toUtcTimestamp`. */
export const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

export const Timestamp = Type.String({
  pattern: RFC3339.source,
  maxLength: 40,
  description: "RFC 3339 timestamp",
});
export const Sha8 = Type.String({ pattern: "^[0-9a-f]{8}$", description: "SHA-8 entry id" });

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

/** A strict object: unknown fields are a validation failure, not silently dropped. */
export function StrictObject<T extends Record<string, TSchema>>(props: T, options: object = {}) {
  return Type.Object(props, { additionalProperties: false, ...options });
}
