import { ValidationFailed } from "../errors.ts";
import { parseTimestamp, SHA8_RE } from "../models/common.ts";
import type { ListQuery } from "../models/tenant-protocol.ts";
import { limitOf } from "./query.ts";

/** A time query parameter (`valid_at`, `as_of`): RFC 3339, default now. */
export function timeParam(value: string | undefined, name: string, now: number): number {
  if (value === undefined) return now;
  const ms = parseTimestamp(value);
  if (ms === undefined)
    throw new ValidationFailed(`${name} must be an RFC 3339 timestamp`, [
      { path: `/${name}`, message: "RFC 3339" },
    ]);
  return ms;
}

export function sha8Param(value: string): string {
  if (!SHA8_RE.test(value))
    throw new ValidationFailed("id must be 8 lower-case hex characters", [
      { path: "/sha8", message: "sha8" },
    ]);
  return value;
}

const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,255}$/;

export function idempotencyKeyOf(request: Request): string | undefined {
  const key = request.headers.get("idempotency-key");
  if (key === null) return undefined;
  if (!IDEMPOTENCY_KEY_RE.test(key)) {
    throw new ValidationFailed("Idempotency-Key must be 1–255 visible ASCII characters", [
      { path: "/headers/idempotency-key", message: "1–255 visible ASCII characters" },
    ]);
  }
  return key;
}

export function listQueryOf(query: Record<string, string | undefined>, now: number): ListQuery {
  const tag = query.tag;
  if (tag !== undefined && (tag.length < 1 || tag.length > 64)) {
    throw new ValidationFailed("tag must be 1–64 characters", [{ path: "/tag", message: "1–64 characters" }]);
  }
  const include = query.include;
  if (include !== undefined && include !== "embedding") {
    throw new ValidationFailed('include accepts only "embedding"', [
      { path: "/include", message: "embedding" },
    ]);
  }
  return {
    limit: limitOf(query, 50, 500),
    cursor: query.cursor,
    tag,
    validAt: timeParam(query.valid_at, "valid_at", now),
    asOf: timeParam(query.as_of, "as_of", now),
    includeEmbedding: include === "embedding",
  };
}
