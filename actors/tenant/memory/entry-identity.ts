/**
 * What makes two writes the same entry (CONTRACT §2): the tenant, the category and the whole
 * normalised body (content, every typed field, tags, data, valid_from, valid_to, supersedes,
 * corrects, agent_id, source), in canonical JSON. Two writes that differ in any of these are two
 * entries. Entries stored under the earlier rule (tenant, category, content, data, valid_from,
 * source) keep their ids: a write of one of them again is recognised through that rule too.
 */

import type { StoredEntry } from "../../../src/memory/temporal.ts";
import type { Entry } from "../../../src/models/entry.ts";
import { canonicalJson, entryId, type IdentityContent, type Sha8 } from "./entry-id.ts";

/** Fields of a returned entry that are not its body: the server's, and the tenant (named apart). */
const NOT_BODY = new Set([
  "id",
  "tenant_id",
  "category",
  "recorded_at",
  "expired_at",
  "invalidated_at",
  "created_by",
  "embedding",
  // Who wrote it is not what was written: the same content from two writers is one entry.
  "origin",
  "trust",
]);

/** Typed fields the server manages per category: never part of what a caller wrote. */
const SERVER_MANAGED: Partial<Record<Entry["category"], string>> = { decision: "status" };

/**
 * The canonical identity text of an entry as first written. `priorValidTo` is the `valid_to` it had
 * before a supersession closed it (StoredEntry.prior_valid_to), `priorStatus` an exception's status
 * before its object's lifecycle resolved it, so a stored entry keeps the identity it was written with.
 */
export function identityText(
  entry: Entry,
  priorValidTo?: string | null,
  priorStatus?: "open" | "resolved",
): string {
  const body: Record<string, unknown> = {};
  const serverManaged = SERVER_MANAGED[entry.category];
  for (const [key, value] of Object.entries(entry)) {
    if (!NOT_BODY.has(key) && key !== serverManaged) body[key] = value;
  }
  if (priorValidTo !== undefined) body.valid_to = priorValidTo;
  if (priorStatus !== undefined) body.status = priorStatus;
  return canonicalJson({ tenant: entry.tenant_id, category: entry.category, body });
}

function storedIdentityText(stored: StoredEntry): string {
  return identityText(stored.entry, stored.prior_valid_to, stored.prior_status);
}

/** The identity of the earlier rule, kept only to find entries stored under it. */
export function legacyIdentity(entry: Entry): IdentityContent {
  return {
    tenant: entry.tenant_id,
    category: entry.category,
    content: entry.content,
    data: entry.data,
    valid_from: entry.valid_from,
    source: entry.source,
  };
}

export type Resolved = { existing: StoredEntry } | { id: string };

/**
 * The id a new entry gets, or the stored entry it already is. First under the current rule (the
 * candidate chain of entryId, each candidate held by another entry skipped), then under the earlier
 * one: an entry stored before the rule changed sits at its legacy id and is the same entry when its
 * whole identity matches.
 */
export function resolveEntryId(
  candidate: Entry,
  lookup: (id: string) => StoredEntry | undefined,
  hash: Sha8,
  /** Whether the vault may hold entries of the earlier rule (legacy-ids.ts); true when unknown. */
  legacyPresent = true,
): Resolved {
  const identity = identityText(candidate);
  const id = entryId(
    identity,
    (c) => {
      const held = lookup(c);
      return held !== undefined && storedIdentityText(held) !== identity;
    },
    hash,
  );
  const existing = lookup(id);
  if (existing) return { existing };
  if (!legacyPresent) return { id };
  const legacy = storedUnderLegacyRule(candidate, lookup, hash);
  return legacy && storedIdentityText(legacy) === identity ? { existing: legacy } : { id };
}

/** The stored entry holding this content's legacy id chain slot, if any. */
function storedUnderLegacyRule(
  candidate: Entry,
  lookup: (id: string) => StoredEntry | undefined,
  hash: Sha8,
): StoredEntry | undefined {
  const legacy = canonicalJson(legacyIdentity(candidate));
  let found: StoredEntry | undefined;
  entryId(
    legacy,
    (c) => {
      const held = lookup(c);
      if (!held) return false;
      if (canonicalJson(legacyIdentity(held.entry)) !== legacy) return true;
      found = held;
      return false;
    },
    hash,
  );
  return found;
}
