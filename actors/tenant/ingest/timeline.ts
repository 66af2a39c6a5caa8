/**
 * An object's timeline (docs/source-mappings.md, "Lifecycles"): the entries written about one
 * platform object (a deal, a ticket, an invoice), ordered by the platform's event time (their
 * valid_from) whatever order they arrived in. One generic rule for every source, applied to what
 * each mapping declares (`lifecycle`, `links`, `closes`):
 * - a `state` ends the state before it (its valid_to becomes the new valid_from) and is ended by
 *   the one after it, so a late event takes its place between its neighbours and never stays
 *   valid over a newer state;
 * - a `close` is the last state: it ends the one before it and resolves every open decision and
 *   exception of the object (and those linked to it) valid from no later than itself; one that
 *   arrives after its close is written resolved. An entry may close other objects than its own
 *   (`closes`: a payment closes its invoice), as if it were their close;
 * - a `link` puts the entry on another object's timeline (an escalation on its ticket's): it is
 *   resolved when that object closes.
 * The result depends on the set of events, not on their order (test/actors/tenant/timeline.test.ts).
 * Kept in the objects index as JSON, one record per object, written with the entry it changes.
 */
import type { StoredEntry } from "../../../src/memory/temporal.ts";
import type { ChangeDraft } from "../../../src/models/change.ts";
import { isoOf } from "../../../src/models/common.ts";
import type { EntryDraft } from "../../../src/models/entry.ts";
import type { IngestDraft, Lifecycle } from "../../../src/sources/types.ts";
import type { Effects } from "../memory/memory.ts";
import { decisionKey, timelineKey } from "./keys.ts";

/**
 * A member: entry id, valid_from (epoch ms), role (state, close, or a member only), category, and
 * the tie-break of equal times: its platform event's id (members recorded before it was kept fall
 * back to their entry id). Not the entry id first: that depends on the body, which a late arrival's
 * bound changes, so it would order equal times by arrival.
 */
export type Member = [id: string, at: number, role: "s" | "c" | "m", category: string, tie?: string | null];

/** Bounds one record: an object of more entries keeps its newest (the oldest are settled long ago). */
const MAX_MEMBERS = 512;
/** A tie-break's length: the record of MAX_MEMBERS stays under the export's 64 KiB per record. */
const TIE_CHARS = 40;

/** The tie-break a member of this event keeps. */
export const tieOf = (eventId: string | undefined) => eventId?.slice(0, TIE_CHARS);

export interface TimelineReads {
  /** The objects index (pending writes overlaid). */
  object(key: string): string | undefined;
  entry(id: string): StoredEntry | undefined;
}

/** What placing a draft on its timelines asks of the write: its draft, its effects, its index records. */
export interface Placement {
  draft: EntryDraft;
  effects(stored: StoredEntry, updates: StoredEntry[]): Effects;
  objects(id: string): Array<[string, string]>;
}

/** The role a source's draft declares (`supersede_previous` is the earlier name of `state`). */
export function lifecycleOf(ingest: IngestDraft): Lifecycle | undefined {
  return ingest.lifecycle ?? (ingest.supersede_previous ? "state" : undefined);
}

/** Whether an entry of this role and category goes on its timelines at all. */
function recorded(role: Lifecycle | undefined, category: string): boolean {
  return role !== undefined || category === "decision" || category === "exception";
}

/** The object's recorded timeline; undefined when none is (a new object, or one written before timelines). */
export function readTimeline(reads: Pick<TimelineReads, "object">, objectKey: string): Member[] | undefined {
  const raw = reads.object(timelineKey(objectKey));
  if (raw === undefined) return undefined;
  try {
    const parsed = JSON.parse(raw) as unknown;
    return Array.isArray(parsed) ? (parsed as Member[]) : [];
  } catch {
    return [];
  }
}

const isState = (m: Member) => m[2] !== "m";
const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** The timeline's total order: event time, then the event's id, then the entry id. */
export const byTime = (a: Member, b: Member) =>
  a[1] - b[1] || order(a[4] ?? a[0], b[4] ?? b[0]) || order(a[0], b[0]);
export const live = (s: StoredEntry | undefined): s is StoredEntry =>
  s !== undefined && s.entry.expired_at === null;
export const resolvable = (s: StoredEntry) =>
  (s.entry.category === "decision" || s.entry.category === "exception") && s.entry.status !== "resolved";

/** One timeline a draft goes on, and its role there: its own object's, one it belongs to, or one it closes. */
interface Target {
  key: string;
  role: Member[2];
  members: Member[];
}

/** The draft's timelines: its object's (with its lifecycle), those it links to and those it closes. */
function targetsOf(reads: TimelineReads, ingest: IngestDraft, draft: EntryDraft): Target[] {
  const own = ingest.object_key;
  const role = own ? lifecycleOf(ingest) : undefined;
  const wanted: Array<[string, Member[2]]> = [];
  if (own && recorded(role, draft.category)) wanted.push([own, roleOf(role)]);
  for (const key of ingest.closes ?? []) wanted.push([key, "c"]);
  for (const key of ingest.links ?? []) wanted.push([key, "m"]);
  const seen = new Set<string>();
  const targets: Target[] = [];
  for (const [key, r] of wanted) {
    if (seen.has(key)) continue;
    seen.add(key);
    const members = readTimeline(reads, key) ?? seeded(reads, key);
    targets.push({ key, role: r, members: members.sort(byTime) });
  }
  return targets;
}

/**
 * The timeline of an object written before timelines were kept (an upgraded vault): what the
 * objects index names, its latest entry and its latest decision, taken as its states so far, so its
 * next event still ends the state it follows.
 */
function seeded(reads: TimelineReads, objectKey: string): Member[] {
  const ids = new Set([reads.object(objectKey), reads.object(decisionKey(objectKey))]);
  const members: Member[] = [];
  for (const id of ids) {
    const stored = id === undefined ? undefined : reads.entry(id);
    if (!live(stored)) continue;
    const { entry } = stored;
    members.push([entry.id, Date.parse(entry.valid_from), "s", entry.category]);
  }
  return members;
}

const roleOf = (role: Lifecycle | undefined): Member[2] =>
  role === "state" ? "s" : role === "close" ? "c" : "m";

/**
 * Where a draft goes on its timelines (its object's, those it links to or closes), and what that
 * changes: the draft bounded by its object's next state, the state before it ended, what a close
 * resolves. `now` is the transaction time (epoch ms).
 */
export function place(
  reads: TimelineReads,
  ingest: IngestDraft,
  draft: EntryDraft,
  now: number,
): Placement | undefined {
  const targets = targetsOf(reads, ingest, draft);
  if (targets.length === 0) return undefined;
  const at = draft.valid_from === undefined ? now : Date.parse(draft.valid_from);
  // Its place in each timeline's total order (its entry id is not known yet: "" sorts it first
  // among the drafts of its own event at its time, the order the event's drafts are written in).
  const me: Member = ["", at, "s", draft.category, tieOf(draft.source?.event_id)];
  const before = (m: Member) => byTime(m, me) < 0;
  const after = (m: Member) => byTime(m, me) > 0;
  const own = targets.find((t) => t.key === ingest.object_key && t.role !== "m" && lifecycleOf(ingest));
  // The state before it on each timeline it is a state of (its own object's, those it closes).
  const ends = targets
    .filter((t) => t.role !== "m")
    .map((t) => t.members.filter((m) => isState(m) && before(m)).at(-1))
    .filter((m) => m !== undefined);
  const next = own?.members.find((m) => isState(m) && after(m));
  let placed = draft;
  // A next state at the same time ends it where it begins: an empty interval, set on the stored
  // entry (a draft's valid_to must be after its valid_from).
  const emptied = next !== undefined && next[1] === at;
  if (next && !emptied && (draft.valid_to == null || Date.parse(draft.valid_to) > next[1]))
    placed = { ...placed, valid_to: isoOf(next[1]) };
  // Appended after its object's last state: linked as a supersession (CONTRACT §5), as ever; one
  // at the same time as that state ends it instead (a supersession must begin after it).
  const prev = own ? own.members.filter((m) => isState(m) && before(m)).at(-1) : undefined;
  const previous = prev ? reads.entry(prev[0]) : undefined;
  const chained =
    !next &&
    prev !== undefined &&
    prev[1] < at &&
    live(previous) &&
    previous.entry.valid_to === null &&
    !draft.supersedes &&
    !draft.corrects;
  if (chained) placed = { ...placed, supersedes: previous.entry.id };
  const closers = targets.flatMap((t) => t.members).filter((m) => m[2] === "c");
  // Resolution goes by event time alone (a close resolves what began no later than itself), which
  // does not depend on the order either: an entry at its close's instant is resolved by it.
  const closed = targets.some((t) => t.role === "c") || closers.some((m) => m[1] >= at);
  return {
    draft: placed,
    effects: (stored, updates) => {
      const lookup = (id: string) => updates.find((u) => u.entry.id === id) ?? reads.entry(id);
      const id = stored.entry.id;
      const by = stored.entry.created_by;
      const changed = new Map<string, StoredEntry>();
      const changes: ChangeDraft[] = [];
      const current = (entryId: string) => changed.get(entryId) ?? lookup(entryId);
      for (const m of ends) {
        if (m[0] === id || (chained && m[0] === prev?.[0])) continue;
        const ended = endAt(current(m[0]), at, now);
        if (!ended) continue;
        changed.set(m[0], ended);
        changes.push(change("entry.superseded", ended, id, by));
      }
      for (const t of targets.filter((target) => target.role === "c"))
        for (const m of t.members) {
          const base = m[1] <= at && m[0] !== id ? current(m[0]) : undefined;
          if (!live(base) || !resolvable(base)) continue;
          const resolved = resolvedOf(base);
          changed.set(m[0], resolved);
          changes.push(change(resolutionOf(resolved), resolved, id, by));
        }
      const bounded = emptied ? (endAt(stored, at, now) ?? stored) : stored;
      const self = closed && resolvable(bounded) ? resolvedOf(bounded) : bounded;
      return { stored: self, updates: [...changed.values()], changes };
    },
    objects: (id) => {
      const records: Array<[string, string]> = [];
      const objectKey = ingest.object_key;
      if (objectKey && !targets.some((t) => t.key === objectKey)) records.push([objectKey, id]);
      for (const t of targets) {
        const later = (m: Member) => after(m) && m[0] !== id;
        if (t.key === ingest.object_key) {
          if (!t.members.some(later)) records.push([t.key, id]);
          const laterDecision = t.members.some((m) => later(m) && m[3] === "decision");
          if (draft.category === "decision" && !laterDecision) records.push([decisionKey(t.key), id]);
        }
        const member: Member = [id, at, t.role, draft.category, me[4]];
        records.push([timelineKey(t.key), JSON.stringify(withMember(t.members, member))]);
      }
      return records;
    },
  };
}

/** The timeline with the member (once), in event-time order, bounded to its newest MAX_MEMBERS. */
function withMember(members: Member[], member: Member): Member[] {
  const all = [...members.filter((m) => m[0] !== member[0]), member].sort(byTime);
  return all.slice(-MAX_MEMBERS);
}

/** The state before a late one, ended where the late one begins (if it was valid past that). */
export function endAt(target: StoredEntry | undefined, at: number, now: number): StoredEntry | undefined {
  // At its own valid_from (a state after it at the same time): an empty interval, valid at no time.
  if (!live(target) || at < Date.parse(target.entry.valid_from)) return undefined;
  const validTo = target.entry.valid_to;
  if (validTo !== null && Date.parse(validTo) <= at) return undefined;
  return {
    ...target,
    prior_valid_to: target.prior_valid_to !== undefined ? target.prior_valid_to : validTo,
    entry: { ...target.entry, valid_to: isoOf(at), invalidated_at: isoOf(now) },
  };
}

/** A decision or exception resolved by its object's close; an exception keeps the status it was written with. */
export function resolvedOf(stored: StoredEntry): StoredEntry {
  const prior =
    stored.entry.category === "exception" ? (stored.prior_status ?? stored.entry.status) : undefined;
  return {
    ...stored,
    ...(prior === "open" || prior === "resolved" ? { prior_status: prior } : {}),
    entry: { ...stored.entry, status: "resolved" },
  };
}

export function resolutionOf(stored: StoredEntry): "decision.resolved" | "exception.resolved" {
  return stored.entry.category === "decision" ? "decision.resolved" : "exception.resolved";
}

/** The change an entry's update records, naming the entry that caused it (unless it is the entry itself). */
export function change(
  type: ChangeDraft["type"],
  stored: StoredEntry,
  related: string,
  by: string,
): ChangeDraft {
  const { id, category } = stored.entry;
  return id === related ? { type, id, category, by } : { type, id, category, by, related };
}
