/**
 * The one-time pass that gives a vault written before object timelines (timeline.ts) the states its
 * lifecycle events would have closed. Such a vault's objects index names, per object, only its
 * latest entry and its latest decision: where both are live and the latest entry began after the
 * decision (a deal's last stage, then its closed-lost exception, which did not supersede it), the
 * decision ends where the entry begins; where that entry closes its object (a deal closed won or
 * lost, a resolved exception: a closed case), the decision and the entry are resolved. Each object
 * gets its timeline record, so its next events are placed in event time. What the index no longer
 * names (a state a reordered delivery orphaned) cannot be found: no entry records its object.
 * Runs once per vault (its marker is a connector-state key written with the last batch), through
 * write sets like every other write.
 */
import type { StoredEntry } from "../../../src/memory/temporal.ts";
import type { ChangeDraft } from "../../../src/models/change.ts";
import { isoOf } from "../../../src/models/common.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import { emptySet } from "../../../src/vault/write-set.ts";
import type { EntryStore } from "../memory/entry-store.ts";
import type { IngestStore } from "./ingest-store.ts";
import { decisionKey, nulJoined, timelineKey } from "./keys.ts";
import { endAt, live, resolutionOf, resolvable, resolvedOf } from "./timeline.ts";

/** The connector-state key marking the pass as done. */
export const UPGRADE_MARK = "upgrade:timelines";
/** Objects per write set. */
const BATCH = 500;

const PREFIXES = ["decision\u0000", "timeline\u0000"];
const CLOSING_STAGES = new Set(["closed_won", "closed_lost"]);

/** Whether an entry of the earlier runtime ended its object: a closing stage, or a resolved exception. */
function closes(stored: StoredEntry): boolean {
  const e = stored.entry;
  const stage = e.stage ?? (e.data as { stage?: unknown } | undefined)?.stage;
  if (typeof stage === "string" && CLOSING_STAGES.has(stage)) return true;
  return e.category === "exception" && e.status === "resolved";
}

/** Runs the pass unless it ran already; answers the commit of its last write set. */
export function upgradeTimelines(
  vault: TenantVault,
  store: IngestStore,
  entries: EntryStore,
  now: number,
): Promise<void> {
  if (store.connectorState(UPGRADE_MARK) !== undefined) return Promise.resolve();
  const objects = vault.tablesOf("ingest").objects;
  const keys: string[] = [];
  for (const { key } of objects.getRange()) {
    const objectKey = nulJoined(key);
    if (!PREFIXES.some((p) => objectKey.startsWith(p))) keys.push(objectKey);
  }
  const commits: Promise<void>[] = [];
  for (let i = 0; i < keys.length; i += BATCH) {
    const set = emptySet({ objects: [], changes: [], at: now });
    for (const key of keys.slice(i, i + BATCH)) upgraded(key, store, entries, now, set);
    if (set.objects?.length) commits.push(written(vault, set));
  }
  // A vault with nothing to upgrade (a new one: its objects keep timelines) is not marked: its next
  // open scans its index again, which costs a read per object and writes nothing.
  if (commits.length > 0) commits.push(written(vault, emptySet({ state: [[UPGRADE_MARK, isoOf(now)]] })));
  return Promise.all(commits).then(() => undefined);
}

type Batch = ReturnType<typeof emptySet>;

/** A write set's commit; a refusal before anything is staged (a vault at its size ceiling) rejects it. */
function written(vault: TenantVault, set: Batch): Promise<void> {
  try {
    return vault.write(set);
  } catch (error) {
    return Promise.reject(error);
  }
}

/** One object's timeline record, and the updates its two indexed entries imply. */
function upgraded(key: string, store: IngestStore, entries: EntryStore, now: number, set: Batch): void {
  if (store.objectLatest(timelineKey(key)) !== undefined) return;
  const latest = entries.get(store.objectLatest(key) ?? "");
  const decision = entries.get(store.objectLatest(decisionKey(key)) ?? "");
  const found = [decision, latest].filter(live);
  const unique = found.filter((s, i) => found.findIndex((o) => o.entry.id === s.entry.id) === i);
  unique.sort((a, b) => Date.parse(a.entry.valid_from) - Date.parse(b.entry.valid_from));
  const last = unique.at(-1);
  const ended = last !== undefined && closes(last);
  // One state that closes nothing: the timeline seeded at its next event (timeline.ts) is the same.
  if (!last || (unique.length < 2 && !ended)) return;
  const members = unique.map((s) => [
    s.entry.id,
    Date.parse(s.entry.valid_from),
    s === last && ended ? "c" : "s",
    s.entry.category,
  ]);
  set.objects?.push([timelineKey(key), JSON.stringify(members)]);
  const by = last.entry.created_by;
  const changes = set.changes as ChangeDraft[];
  const before = unique.length === 2 ? unique[0]! : undefined;
  if (before) {
    let earlier = before;
    const closed = endAt(earlier, Date.parse(last.entry.valid_from), now);
    if (closed) {
      earlier = closed;
      changes.push({
        type: "entry.superseded",
        id: earlier.entry.id,
        category: earlier.entry.category,
        by,
        related: last.entry.id,
      });
    }
    if (ended && resolvable(earlier)) {
      earlier = resolvedOf(earlier);
      changes.push({
        type: resolutionOf(earlier),
        id: earlier.entry.id,
        category: earlier.entry.category,
        by,
        related: last.entry.id,
      });
    }
    if (earlier !== before) set.entries.push(earlier);
  }
  if (ended && resolvable(last)) {
    const resolved = resolvedOf(last);
    set.entries.push(resolved);
    changes.push({ type: resolutionOf(resolved), id: last.entry.id, category: last.entry.category, by });
  }
}
