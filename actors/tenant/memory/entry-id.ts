import { createHash } from "node:crypto";

/** Canonical JSON: object keys sorted at every depth, so equal content always hashes equal. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") {
    // A null prototype, so a "__proto__" key is data like any other, not a prototype assignment.
    const out: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

export type Sha8 = (text: string) => string;

export const sha8: Sha8 = (text) => createHash("sha256").update(text).digest("hex").slice(0, 8);

/** The identity of the earlier id rule (tenant, category, content, data, valid_from, source). */
export interface IdentityContent {
  tenant: string;
  category: string;
  content: string;
  data?: unknown;
  valid_from: string;
  source?: unknown;
}

/**
 * The entry id: the first 8 hex of the SHA-256 of the canonical identity (CONTRACT §2; see
 * entry-identity.ts for what the identity holds). When that id is taken by a different entry, the
 * next candidate hashes the canonical text with a counter (`<canonical>#1`, `#2`, …):
 * deterministic, so a replay of the same writes yields the same ids. `identity` is an object
 * (canonicalised here) or a canonical text already. `taken(id)` answers whether an id is held by a
 * *different* entry.
 */
export function entryId(identity: unknown, taken: (id: string) => boolean, hash: Sha8 = sha8): string {
  const canonical = typeof identity === "string" ? identity : canonicalJson(identity);
  let id = hash(canonical);
  for (let counter = 1; taken(id); counter++) {
    if (counter > 1_000) throw new Error("entry id space exhausted for this content");
    id = hash(`${canonical}#${counter}`);
  }
  return id;
}
