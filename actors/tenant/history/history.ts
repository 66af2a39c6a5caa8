import { NotFound } from "../../../src/errors/domain-errors.ts";
import type { Category } from "../../../src/models/category.ts";
import type { Change } from "../../../src/models/change.ts";
import type { Entry } from "../../../src/models/entry.ts";
import type {
  EntryHistory,
  HistoryEvent,
  HistoryEventType,
  HistoryVersion,
} from "../../../src/models/history.ts";
import type { ChangeLog } from "../../../src/vault/change-log.ts";
import type { Tombstone } from "../../../src/vault/write-set.ts";
import type { Tombstones } from "../erase/tombstones.ts";
import type { EntryStore } from "../memory/entry-store.ts";
import type { SliceHandlers } from "../slice.ts";

/** Change types as they read from the changed entry's side. */
const AS_SEEN: Partial<Record<Change["type"], HistoryEventType>> = {
  "entry.superseded": "superseded_by",
  "entry.corrected": "corrected_by",
  "decision.resolved": "resolved_by",
  "exception.resolved": "resolved_by",
  "entry.retracted": "retracted",
  "entry.erased": "erased",
  "entry.merged": "merged_into",
  "entry.absorbed": "merged_from",
  "entry.unmerged": "unmerged",
};
/** A chain longer than this is cut (a guard, not a limit anyone meets). */
const MAX_VERSIONS = 1000;

/** What history reads: entries, tombstones and the change log. */
export interface HistoryReads {
  entries: EntryStore;
  tombstones: Tombstones;
  changes: ChangeLog;
}

/** The history part of the tenant protocol: one entry's history, and the change log after a position. */
export function historyHandlers(reads: HistoryReads): SliceHandlers<"entry.history" | "changes.since"> {
  return {
    "entry.history": ({ category, id }) => entryHistory(reads, category, id),
    "changes.since": ({ after, limit }) => ({
      changes: reads.changes.since(after, limit),
      last: reads.changes.last(),
    }),
  };
}

/**
 * An entry's history from its own fields (what it supersedes, corrects or resolves) and the change
 * log (what happened to it since): reads the entry, its tombstone and its changes, nothing else.
 */
export function entryHistory(reads: HistoryReads, category: Category, id: string): EntryHistory {
  const entry = reads.entries.get(id)?.entry;
  const tombstone = reads.tombstones.of(id);
  if (entry?.category !== category && tombstone?.category !== category)
    throw new NotFound(`no ${category} ${id} in this tenant`);
  const changes = reads.changes.of(id);
  return {
    id,
    category,
    erased_at: tombstone?.erased_at ?? null,
    versions: versionsOf(reads, id),
    events: eventsOf(entry, changes, tombstone),
  };
}

function eventsOf(
  entry: Entry | undefined,
  changes: Change[],
  tombstone: Pick<Tombstone, "recorded_at" | "created_by"> | undefined,
): HistoryEvent[] {
  // The log indexes a creation only in vaults of before byEntryKey; the entry says the same.
  const logged = changes.find((c) => c.type === "entry.created");
  const created = {
    at: logged?.at ?? entry?.recorded_at ?? tombstone!.recorded_at,
    by: logged?.by ?? entry?.created_by ?? tombstone?.created_by ?? "unknown",
  };
  const events: HistoryEvent[] = [{ type: "created", ...created }];
  // What it did to others when written (known from its fields while it is not erased).
  if (entry?.supersedes) events.push({ type: "supersedes", ...created, related: entry.supersedes });
  if (entry?.corrects) events.push({ type: "corrects", ...created, related: entry.corrects });
  if (entry?.category === "outcome" && entry.decision_id)
    events.push({ type: "resolves", ...created, related: entry.decision_id });
  for (const change of changes) {
    const type = AS_SEEN[change.type];
    if (!type) continue;
    events.push({
      type,
      at: change.at,
      by: change.by,
      ...(change.related ? { related: change.related } : {}),
    });
  }
  // Stable: same-time events keep the order above (creation first, then the log's order).
  return events
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.at.localeCompare(b.e.at) || a.i - b.i)
    .map(({ e }) => e);
}

/** The chain of versions through `supersedes`/`corrects` backwards and the change log forwards. */
function versionsOf(reads: HistoryReads, id: string): HistoryVersion[] {
  const before: string[] = [];
  const seen = new Set([id]);
  for (
    let prev = previousOf(reads, id);
    prev && !seen.has(prev) && seen.size < MAX_VERSIONS;
    prev = previousOf(reads, prev)
  ) {
    before.unshift(prev);
    seen.add(prev);
  }
  const after: string[] = [];
  for (
    let next = nextOf(reads, id);
    next && !seen.has(next) && seen.size < MAX_VERSIONS;
    next = nextOf(reads, next)
  ) {
    after.push(next);
    seen.add(next);
  }
  return [...before, id, ...after].map((v) => versionOf(reads, v)).filter((v) => v !== undefined);
}

function previousOf(reads: HistoryReads, id: string): string | undefined {
  const entry = reads.entries.get(id)?.entry;
  if (entry) return entry.supersedes ?? entry.corrects;
  // An erased version's fields are gone; its own change log still names what replaced what.
  return undefined;
}

function nextOf(reads: HistoryReads, id: string): string | undefined {
  const replaced = reads.changes
    .of(id)
    .find((c) => c.type === "entry.superseded" || c.type === "entry.corrected");
  return replaced?.related;
}

function versionOf(reads: HistoryReads, id: string): HistoryVersion | undefined {
  const entry = reads.entries.get(id)?.entry;
  if (entry) {
    return {
      id,
      recorded_at: entry.recorded_at,
      valid_from: entry.valid_from,
      valid_to: entry.valid_to,
      expired_at: entry.expired_at,
      erased_at: null,
    };
  }
  const tombstone = reads.tombstones.of(id);
  if (!tombstone) return undefined;
  return {
    id,
    recorded_at: tombstone.recorded_at,
    valid_from: null,
    valid_to: null,
    expired_at: null,
    erased_at: tombstone.erased_at,
  };
}
