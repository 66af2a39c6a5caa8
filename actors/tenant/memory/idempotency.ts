import { createHash } from "node:crypto";
import { IdempotencyMismatch } from "../../../src/errors/domain-errors.ts";
import type { IdempotencyRecord } from "../../../src/vault/write-set.ts";
import { canonicalJson } from "./entry-id.ts";
import type { EntryStore } from "./entry-store.ts";

/** How long an Idempotency-Key answers with its first answer. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

/**
 * The first answer under an Idempotency-Key used within 24 h, if any; the same key with another
 * body is refused (422 idempotency_mismatch). A reply from a write still in flight waits for its
 * commit: the tenant actor sees to that.
 */
export function replayed(
  entries: EntryStore,
  key: string | undefined,
  request: unknown,
  now: number,
): { status: number; body: unknown } | undefined {
  if (!key) return undefined;
  const record = entries.idempotent(key, now, IDEMPOTENCY_TTL_MS);
  if (!record) return undefined;
  if (record.request !== undefined && record.request !== requestDigest(request))
    throw new IdempotencyMismatch("this Idempotency-Key was used with a different request body");
  return record;
}

/** The record a write stores under its Idempotency-Key, with the answer it gave. */
export function idempotencyRecord(
  key: string,
  request: unknown,
  now: number,
  status: number,
  body: unknown,
): { key: string; record: IdempotencyRecord } {
  return { key, record: { at: now, status, body, request: requestDigest(request) } };
}

/** What makes two requests under one Idempotency-Key the same: their bodies, canonically. */
function requestDigest(request: unknown): string {
  return createHash("sha256").update(canonicalJson(request)).digest("base64url");
}
