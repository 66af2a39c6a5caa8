/**
 * Shared cryptographic helpers of the webhook verifiers. Every comparison of a secret or a
 * signature goes through `safeEqual`, which is constant-time and does not leak the length.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

export type Bytes = string | Uint8Array;

/** HMAC-SHA256 keyed with `key` over the parts concatenated (strings as UTF-8). */
export function hmacSha256(key: Bytes, ...parts: Bytes[]): Buffer {
  const mac = createHmac("sha256", key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/** Lower-case hex SHA-256 over the parts concatenated. */
export function sha256Hex(...parts: Bytes[]): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest("hex");
}

function digest(value: Bytes): Buffer {
  return createHash("sha256").update(value).digest();
}

/**
 * Constant-time equality. Both sides are hashed first so timingSafeEqual always sees equal
 * lengths: neither the content nor the length of the expected value leaks through timing.
 */
export function safeEqual(a: Bytes, b: Bytes): boolean {
  const equalDigests = timingSafeEqual(digest(a), digest(b));
  return equalDigests && byteLength(a) === byteLength(b);
}

function byteLength(value: Bytes): number {
  return typeof value === "string" ? Buffer.byteLength(value) : value.byteLength;
}

/** True when any candidate equals the expected value; every candidate is compared (no early exit). */
export function safeEqualAny(expected: Bytes, candidates: readonly Bytes[]): boolean {
  let found = false;
  for (const candidate of candidates) found = safeEqual(expected, candidate) || found;
  return found;
}
