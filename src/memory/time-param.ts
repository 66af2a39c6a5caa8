import { ValidationFailed } from "../errors/domain-errors.ts";
import { parseTimestamp } from "../models/common.ts";

/** A time parameter (`valid_at`, `as_of`): RFC 3339 (its schema checked the form), a real instant, default now. */
export function timeParam(value: string | undefined, name: string, now: number): number {
  if (value === undefined) return now;
  const ms = parseTimestamp(value);
  if (ms === undefined)
    throw new ValidationFailed(`${name} must be an RFC 3339 timestamp`, [
      { path: `/${name}`, message: "RFC 3339" },
    ]);
  return ms;
}
