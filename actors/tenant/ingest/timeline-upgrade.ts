/**
 * The one-time pass that gives a vault written before object timelines (timeline.ts) the states its
 * lifecycle events would have closed. Such a vault's entries do not record their object: per
 * object the index names, its entries are found by one scan of all the tenant's entries
 * (timeline-groups.ts: same source, the object's id in the same `data` field, a shared tag), so
 * a stage a reordered delivery orphaned (left valid when a late one took the pointer) is found
 * too. Each object's timeline is rebuilt in event time (valid_from, then the event's id): its
 * states are its decisions, the entries the earlier runtime chained (superseding or superseded)
 * and its latest entry; its close a closing stage (a deal closed won or lost) or a resolved
 * exception (a closed case). Each state ends where the next begins, a close resolves the open
 * decisions and exceptions that began no later than it, and the index's pointers name the latest
 * in event time. Runs once per vault (its marker is a connector-state key written with the last
 * batch), through write sets like every other write. Its cost: a read of the index, and where an
 * object of states lacks its timeline, one read of every entry of the tenant.
 */
import type { StoredEntry } from "../../../src/memory/temporal.ts";
import type { ChangeDraft } from "../../../src/models/change.ts";
import { isoOf } from "../../../src/models/common.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import { emptySet } from "../../../src/vault/write-set.ts";
import type { EntryStore } from "../memory/entry-store.ts";
import type { IngestStore } from "./ingest-store.ts";
import { decisionKey, nulJoined, timelineKey } from "./keys.ts";
import {
  byTime,
  change,
  endAt,
  live,
  type Member,
  resolutionOf,
  resolvable,
  resolvedOf,
  tieOf,
} from "./timeline.ts";
import { groupsOf, type Indexed } from "./timeline-groups.ts";

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
  const objects: Indexed[] = [];
  for (const { key } of vault.tablesOf("ingest").objects.getRange()) {
    const objectKey = nulJoined(key);
    if (PREFIXES.some((p) => objectKey.startsWith(p))) continue;
    if (store.objectLatest(timelineKey(objectKey)) !== undefined) continue;
    const named = [store.objectLatest(objectKey), store.objectLatest(decisionKey(objectKey))]
      .map((id) => entries.get(id ?? ""))
      .filter(live);
    // Only an object of states has a timeline to rebuild: one of facts (a company's relationships)
    // is not, and has none in a new vault either.
    if (named.some((s) => roleOf(s, undefined) !== "m")) objects.push({ key: objectKey, named });
  }
  // A vault whose objects all keep timelines (a new one) has nothing to upgrade, and is not
  // marked: its next open reads its index again, and writes nothing.
  if (objects.length === 0) return Promise.resolve();
  const groups = groupsOf(objects, entries.all());
  const commits: Promise<void>[] = [];
  for (let i = 0; i < objects.length; i += BATCH) {
    const set = emptySet({ objects: [], changes: [], at: now });
    for (const { key } of objects.slice(i, i + BATCH)) rebuilt(key, groups.get(key) ?? [], store, now, set);
    if (set.objects?.length) commits.push(written(vault, set));
  }
  commits.push(written(vault, emptySet({ state: [[UPGRADE_MARK, isoOf(now)]] })));
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

/** An entry's role on its rebuilt timeline (see the header). */
function roleOf(stored: StoredEntry, latest: string | undefined): Member[2] {
  if (closes(stored)) return "c";
  const e = stored.entry;
  const chained = e.supersedes != null || (e.invalidated_at !== null && e.valid_to !== null);
  return e.category === "decision" || chained || e.id === latest ? "s" : "m";
}

/** One object's timeline rebuilt from its entries: its record, its pointers, what it ends and resolves. */
function rebuilt(key: string, group: StoredEntry[], store: IngestStore, now: number, set: Batch): void {
  const latest = store.objectLatest(key);
  const byId = new Map(group.map((s) => [s.entry.id, s]));
  const members: Member[] = group
    .map((s): Member => {
      const e = s.entry;
      return [e.id, Date.parse(e.valid_from), roleOf(s, latest), e.category, tieOf(e.source?.event_id)];
    })
    .sort(byTime);
  const ends = members.some((m) => m[2] === "c");
  // One state that closes nothing: the timeline seeded at its next event (timeline.ts) is the same.
  if (members.length < 2 && !ends) return;
  const changed = new Map<string, StoredEntry>();
  const changes = set.changes as ChangeDraft[];
  const current = (id: string) => changed.get(id) ?? byId.get(id)!;
  const states = members.filter((m) => m[2] !== "m");
  for (const [i, m] of states.entries()) {
    const next = states[i + 1];
    const ended = next ? endAt(current(m[0]), next[1], now) : undefined;
    if (!ended || !next) continue;
    changed.set(m[0], ended);
    changes.push(change("entry.superseded", ended, next[0], ended.entry.created_by));
  }
  for (const close of members.filter((m) => m[2] === "c"))
    for (const m of members.filter((member) => member[1] <= close[1])) {
      const base = current(m[0]);
      if (!resolvable(base)) continue;
      const resolved = resolvedOf(base);
      changed.set(m[0], resolved);
      changes.push(change(resolutionOf(resolved), resolved, close[0], resolved.entry.created_by));
    }
  set.entries.push(...changed.values());
  set.objects?.push([timelineKey(key), JSON.stringify(members)]);
  // The pointers name the latest in event time, not the latest to arrive.
  const last = members.at(-1)![0];
  if (last !== latest) set.objects?.push([key, last]);
  const decision = members.filter((m) => m[3] === "decision").at(-1)?.[0];
  if (decision && decision !== store.objectLatest(decisionKey(key)))
    set.objects?.push([decisionKey(key), decision]);
}
