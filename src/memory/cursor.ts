import { ValidationFailed } from "../errors/domain-errors.ts";

/**
 * Opaque paging cursor: the sequence number of the last entry returned. Lists walk a per-tenant
 * sequence downward, and new entries always get a higher one, so every entry is seen exactly once
 * while new entries arrive.
 */
export function encodeCursor(seq: number): string {
  return Buffer.from(JSON.stringify({ s: seq })).toString("base64url");
}

export function decodeCursor(cursor: string): number {
  try {
    if (cursor.length > 64) throw new Error("too long");
    const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { s?: unknown };
    if (typeof parsed.s === "number" && Number.isSafeInteger(parsed.s) && parsed.s >= 0) return parsed.s;
  } catch {
    // fall through: any decoding failure is the caller's malformed cursor
  }
  throw new ValidationFailed("cursor is malformed", [
    { path: "/cursor", message: "not a cursor this API returned" },
  ]);
}
