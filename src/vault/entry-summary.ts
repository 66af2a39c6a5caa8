import type { Category } from "../models/category.ts";
import type { ScopeFilter } from "../models/scope.ts";
import { categoryIndex, type EntryRow } from "./entry-rows.ts";
import { IdSlots } from "./id-slots.ts";

/** The filters of a search or scan, as the summary checks them. */
export interface SummaryFilter {
  categories: readonly Category[];
  /** Every one of these tags. */
  tags?: readonly string[];
  /** At least one of these tags (none: no condition). */
  tagsAny?: readonly string[];
  /** Transaction time, epoch ms. */
  asOf: number;
  /** Valid time, epoch ms. */
  validAt: number;
  /** Also valid at some moment of [from, to) (a question about the past: src/search/controls/time/). */
  validDuring?: { from: number; to: number };
  /** Subject, session, agent, and a restricted token's reach (none: no condition). */
  scope?: ScopeFilter;
}

/** No subject, session or agent (scope ids are interned from 1). */
const NO_SCOPE = 0;

const DEAD = 255;
const HEX8 = /^[0-9a-f]{8}$/;
const NONE = Number.NaN;

/**
 * Every entry of a vault in memory as columns (typed arrays, tags interned), in sequence order:
 * built from the `entry-rows` table on open, kept with every write as it is staged. Scans by
 * category, tag and valid time and the search's visibility filter read it instead of decoding
 * entries; only the entries they return are read. About 90 bytes an entry.
 */
export class EntrySummary {
  private size = 0;
  private seqs = new Float64Array(1024);
  /** Ids as 32-bit numbers (8 hex digits); an id of another shape is kept in `otherIds`. */
  private idNums = new Uint32Array(1024);
  private readonly otherIds = new Map<number, string>();
  private cats = new Uint8Array(1024);
  private times = new Float64Array(1024 * 6);
  private tagStart = new Uint32Array(1024);
  private tagCount = new Uint16Array(1024);
  private tagPool = new Uint32Array(4096);
  private poolSize = 0;
  private readonly tagIds = new Map<string, number>();
  /** Subject, session and agent of each entry, interned (one table for the three: ids are exact). */
  private subjects = new Uint32Array(1024);
  private sessions = new Uint32Array(1024);
  private agents = new Uint32Array(1024);
  private readonly scopeIds = new Map<string, number>();
  private readonly scopeNames: string[] = [""];
  private readonly matchers = new WeakMap<ScopeFilter, (slot: number) => boolean>();
  private readonly slots = new IdSlots();
  private dead = 0;

  /** Adds or replaces an entry's row (an update of a known id replaces it in place). */
  upsert(seq: number, row: EntryRow): void {
    let slot = this.slots.get(row[0]);
    if (slot < 0 || this.seqs[slot] !== seq) {
      if (slot >= 0) this.kill(slot);
      if (this.size > 0 && seq <= this.seqs[this.size - 1]!) {
        this.insertOrdered(seq, row);
        return;
      }
      slot = this.append(seq, row[0]);
    }
    this.fill(slot, row);
  }

  /** Forgets an entry (erased, or its write failed). */
  remove(id: string): void {
    const slot = this.slots.get(id);
    if (slot >= 0) this.kill(slot);
  }

  has(id: string): boolean {
    return this.slots.get(id) >= 0;
  }

  /** The entry's sequence number, staged writes included (a read by id skips the id → seq record). */
  seqOf(id: string): number | undefined {
    const slot = this.slots.get(id);
    return slot >= 0 ? this.seqs[slot] : undefined;
  }

  /** Entries known (not erased). */
  count(): number {
    return this.size - this.dead;
  }

  /** Whether the entry exists and passes the filter, from the summary alone. */
  accepts(id: string, filter: SummaryFilter, categories = categoryMask(filter.categories)): boolean {
    const slot = this.slots.get(id);
    return slot >= 0 && this.passes(slot, filter, categories);
  }

  /** Whether the entry exists and is in the scope (a scoped export's records). */
  inScopeId(id: string, scope: ScopeFilter): boolean {
    const slot = this.slots.get(id);
    return slot >= 0 && this.cats[slot] !== DEAD && this.inScope(scope)(slot);
  }

  /** Ids newest first (by sequence, strictly below `before`) whose row satisfies `match`. */
  *newest(match: (slot: number) => boolean, before = Number.MAX_SAFE_INTEGER): Generator<string> {
    for (let slot = this.size - 1; slot >= 0; slot--) {
      if (this.cats[slot] === DEAD || this.seqs[slot]! >= before) continue;
      if (match(slot)) yield this.idAt(slot);
    }
  }

  /** A match for `newest`: entries of one category. */
  inCategory(category: Category): (slot: number) => boolean {
    const index = categoryIndex(category);
    return (slot) => this.cats[slot] === index;
  }

  /** A match for `newest`: entries carrying the tag. */
  withTag(tag: string): (slot: number) => boolean {
    const id = this.tagIds.get(tag);
    return (slot) => id !== undefined && this.hasTag(slot, id);
  }

  /** A match for `newest`: entries of one category, with the tag if given, in the scope if given. */
  listed(category: Category, tag?: string, scope?: ScopeFilter): (slot: number) => boolean {
    const inCategory = this.inCategory(category);
    const withTag = tag === undefined ? undefined : this.withTag(tag);
    const inScope = scope === undefined ? undefined : this.inScope(scope);
    return (slot) => inCategory(slot) && (withTag?.(slot) ?? true) && (inScope?.(slot) ?? true);
  }

  /** A match for `newest`: entries in the scope (the ids compared as interned numbers). */
  inScope(f: ScopeFilter): (slot: number) => boolean {
    const id = (name: string | undefined) =>
      name === undefined ? undefined : (this.scopeIds.get(name) ?? -1);
    const subject = id(f.subject);
    const session = id(f.session_id);
    const agent = id(f.agent_id);
    const within = f.within && { subject: id(f.within.subject)!, unscoped: f.within.unscoped };
    return (slot) => {
      const s = this.subjects[slot]!;
      if (subject !== undefined && s !== subject) return false;
      if (session !== undefined && this.sessions[slot] !== session) return false;
      if (agent !== undefined && this.agents[slot] !== agent) return false;
      if (within && !(s === NO_SCOPE ? within.unscoped : s === within.subject)) return false;
      return true;
    };
  }

  /** A match for `newest`: entries passing a search's filter. */
  visibleTo(filter: SummaryFilter): (slot: number) => boolean {
    const mask = categoryMask(filter.categories);
    return (slot) => this.passes(slot, filter, mask);
  }

  /** Ids whose valid_from lies in [fromMs, toMs), in valid-time order (then sequence). */
  validIn(fromMs: number, toMs: number): string[] {
    const found: number[] = [];
    for (let slot = 0; slot < this.size; slot++) {
      const from = this.times[slot * 6]!;
      if (this.cats[slot] !== DEAD && from >= fromMs && from < toMs) found.push(slot);
    }
    found.sort((a, b) => this.times[a * 6]! - this.times[b * 6]! || this.seqs[a]! - this.seqs[b]!);
    return found.map((slot) => this.idAt(slot));
  }

  private passes(slot: number, f: SummaryFilter, categories: number): boolean {
    const cat = this.cats[slot]!;
    if (cat === DEAD || (categories & (1 << cat)) === 0) return false;
    // The scope first: one integer comparison leaves out every other subject's entries.
    if (f.scope !== undefined && !this.scopeMatcher(f.scope)(slot)) return false;
    const t = slot * 6;
    const validFrom = this.times[t]!;
    const validTo = this.times[t + 1]!;
    const recorded = this.times[t + 2]!;
    const expired = this.times[t + 3]!;
    const invalidated = this.times[t + 4]!;
    // As src/memory/temporal.ts `visible`: known at asOf, then valid at validAt in that view.
    if (recorded > f.asOf) return false;
    if (!Number.isNaN(expired) && expired <= f.asOf) return false;
    const end = !Number.isNaN(invalidated) && invalidated > f.asOf ? this.times[t + 5]! : validTo;
    if (!validThen(validFrom, end, f)) return false;
    if (f.tags?.some((tag) => !this.hasTagName(slot, tag))) return false;
    if (f.tagsAny && f.tagsAny.length > 0 && !f.tagsAny.some((tag) => this.hasTagName(slot, tag)))
      return false;
    return true;
  }

  /** A scope's match, made once per filter object (a search checks many ids against one filter). */
  private scopeMatcher(scope: ScopeFilter): (slot: number) => boolean {
    let match = this.matchers.get(scope);
    if (!match) {
      match = this.inScope(scope);
      this.matchers.set(scope, match);
    }
    return match;
  }

  private idAt(slot: number): string {
    return this.otherIds.get(slot) ?? this.idNums[slot]!.toString(16).padStart(8, "0");
  }

  private hasTagName(slot: number, tag: string): boolean {
    const id = this.tagIds.get(tag);
    return id !== undefined && this.hasTag(slot, id);
  }

  private hasTag(slot: number, tag: number): boolean {
    const start = this.tagStart[slot]!;
    const end = start + this.tagCount[slot]!;
    for (let i = start; i < end; i++) if (this.tagPool[i] === tag) return true;
    return false;
  }

  private append(seq: number, id: string): number {
    if (this.size === this.seqs.length) this.growRows();
    const slot = this.size++;
    this.seqs[slot] = seq;
    if (HEX8.test(id)) this.idNums[slot] = Number.parseInt(id, 16);
    else this.otherIds.set(slot, id);
    this.tagCount[slot] = 0;
    this.slots.set(id, slot);
    return slot;
  }

  private fill(slot: number, row: EntryRow): void {
    const [, category, tags, validFrom, validTo, recorded, expired, invalidated, prior] = row;
    this.cats[slot] = category;
    this.subjects[slot] = this.internScope(row[9]);
    this.sessions[slot] = this.internScope(row[10]);
    this.agents[slot] = this.internScope(row[11]);
    const t = slot * 6;
    this.times[t] = validFrom;
    this.times[t + 1] = validTo ?? NONE;
    this.times[t + 2] = recorded;
    this.times[t + 3] = expired ?? NONE;
    this.times[t + 4] = invalidated ?? NONE;
    this.times[t + 5] = prior ?? NONE;
    if (!this.sameTags(slot, tags)) {
      if (this.poolSize + tags.length > this.tagPool.length) this.growPool(tags.length);
      this.tagStart[slot] = this.poolSize;
      for (const tag of tags) this.tagPool[this.poolSize++] = this.intern(tag);
      this.tagCount[slot] = tags.length;
    }
  }

  private sameTags(slot: number, tags: string[]): boolean {
    if (this.tagCount[slot] !== tags.length) return false;
    return tags.every((tag) => this.hasTagName(slot, tag));
  }

  private intern(tag: string): number {
    let id = this.tagIds.get(tag);
    if (id === undefined) {
      id = this.tagIds.size;
      this.tagIds.set(tag, id);
    }
    return id;
  }

  private internScope(name: string | null | undefined): number {
    if (name == null) return NO_SCOPE;
    let id = this.scopeIds.get(name);
    if (id === undefined) {
      id = this.scopeNames.length;
      this.scopeIds.set(name, id);
      this.scopeNames.push(name);
    }
    return id;
  }

  private kill(slot: number): void {
    if (this.cats[slot] === DEAD) return;
    this.cats[slot] = DEAD;
    this.slots.remove(this.idAt(slot));
    this.dead++;
  }

  /** A row below the newest sequence (an out-of-order write): the columns are rebuilt in order. */
  private insertOrdered(seq: number, row: EntryRow): void {
    const rows: Array<[number, EntryRow]> = [[seq, row]];
    for (let slot = 0; slot < this.size; slot++)
      if (this.cats[slot] !== DEAD) rows.push([this.seqs[slot]!, this.rowAt(slot)]);
    rows.sort((a, b) => a[0] - b[0]);
    this.reset();
    for (const [s, r] of rows) this.fill(this.append(s, r[0]), r);
  }

  private rowAt(slot: number): EntryRow {
    const t = slot * 6;
    const orNull = (v: number) => (Number.isNaN(v) ? null : v);
    const start = this.tagStart[slot]!;
    const names = [...this.tagIds.keys()];
    const tags = [...this.tagPool.subarray(start, start + this.tagCount[slot]!)].map((id) => names[id]!);
    return [
      this.idAt(slot),
      this.cats[slot]!,
      tags,
      this.times[t]!,
      orNull(this.times[t + 1]!),
      this.times[t + 2]!,
      orNull(this.times[t + 3]!),
      orNull(this.times[t + 4]!),
      orNull(this.times[t + 5]!),
      this.scopeNameAt(this.subjects[slot]!),
      this.scopeNameAt(this.sessions[slot]!),
      this.scopeNameAt(this.agents[slot]!),
    ];
  }

  private scopeNameAt(id: number): string | null {
    return id === NO_SCOPE ? null : this.scopeNames[id]!;
  }

  private reset(): void {
    this.size = 0;
    this.dead = 0;
    this.poolSize = 0;
    this.otherIds.clear();
    this.slots.clear();
  }

  private growRows(): void {
    const n = this.seqs.length * 2;
    this.seqs = grown(this.seqs, n);
    this.idNums = grown(this.idNums, n);
    this.cats = grown(this.cats, n);
    this.times = grown(this.times, n * 6);
    this.tagStart = grown(this.tagStart, n);
    this.tagCount = grown(this.tagCount, n);
    this.subjects = grown(this.subjects, n);
    this.sessions = grown(this.sessions, n);
    this.agents = grown(this.agents, n);
  }

  private growPool(more: number): void {
    this.tagPool = grown(this.tagPool, Math.max(this.tagPool.length * 2, this.poolSize + more));
  }
}

/** Valid at the filter's valid time, or at some moment of its `validDuring` (an open end is NaN). */
function validThen(validFrom: number, end: number, f: SummaryFilter): boolean {
  if (validFrom <= f.validAt && (Number.isNaN(end) || f.validAt < end)) return true;
  const d = f.validDuring;
  return d !== undefined && validFrom < d.to && (Number.isNaN(end) || end > d.from);
}

/** The categories as a bit mask (six categories: one bit each). */
export function categoryMask(categories: readonly Category[]): number {
  let mask = 0;
  for (const c of categories) {
    const i = categoryIndex(c);
    if (i >= 0) mask |= 1 << i;
  }
  return mask;
}

function grown<T extends Float64Array | Uint8Array | Uint32Array | Uint16Array>(a: T, n: number): T {
  const b = new (a.constructor as new (n: number) => T)(n);
  b.set(a);
  return b;
}
