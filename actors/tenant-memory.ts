import { join } from "node:path";
import type { Hit } from "../src/embedding/hit.ts";
import { fuse } from "../src/embedding/hybrid.ts";
import { TENANT_INDEX_TUNING } from "../src/embedding/index-tuning.ts";
import { LexicalIndex } from "../src/embedding/lexical-index.ts";
import { VectorIndex } from "../src/embedding/vector-index.ts";
import { NotFound, ValidationFailed } from "../src/errors.ts";
import { decodeCursor, encodeCursor } from "../src/memory/cursor.ts";
import { buildEntry, type NormalisedDraft, normaliseDraft } from "../src/memory/entry-builder.ts";
import { canonicalJson, entryId, type IdentityContent, type Sha8, sha8 } from "../src/memory/entry-id.ts";
import { type StoredEntry, type TimeFilter, visible } from "../src/memory/temporal.ts";
import type { Category } from "../src/models/category.ts";
import { isoOf } from "../src/models/common.ts";
import type { Entry } from "../src/models/entry.ts";
import type { CreateEntry, ListEntries, SearchEntries, SearchResult } from "../src/models/tenant-protocol.ts";
import type { Clock } from "../src/runtime/clock.ts";
import type { TenantVault, WriteSet } from "../src/vault/tenant-vault.ts";

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
const INDEX_FILE = "vectors.usearch";
/** Past this many pending vectors `add` inserts into the graph itself (a backstop, not the plan). */
const MAX_PENDING_VECTORS = 100_000;

export interface MemoryOptions {
  tenantId: string;
  vault: TenantVault;
  clock: Clock;
  dims: number;
  hash?: Sha8;
}

export interface Prepared {
  stored: StoredEntry;
  /** Other entries this one changes (superseded, corrected, the decision an outcome resolves). */
  updates: StoredEntry[];
}

export interface Written {
  status: 200 | 201;
  entry: Entry;
  /** Resolves once the write set has committed. */
  committed: Promise<void>;
}

/**
 * A tenant's typed memory: entry writes with their bi-temporal side effects, reads, lists and
 * hybrid search. Owned by the tenant actor, so every method runs serially.
 */
export class TenantMemory {
  readonly index: VectorIndex;
  private lexical: LexicalIndex | undefined;
  private readonly vault: TenantVault;
  private readonly hash: Sha8;

  constructor(private readonly opts: MemoryOptions) {
    this.vault = opts.vault;
    this.hash = opts.hash ?? sha8;
    // Graph insertion (~0.3 ms a vector) never runs on the write path: the actor moves pending
    // vectors into the graph in small chunks between messages (see flushIndex), and until then
    // they are searched exactly.
    this.index = VectorIndex.open({
      file: join(opts.vault.dir, INDEX_FILE),
      dims: opts.dims,
      maxPending: MAX_PENDING_VECTORS,
      ...TENANT_INDEX_TUNING,
    });
    this.catchUpIndex();
  }

  /** Vectors committed after the index file was last saved (e.g. after a kill -9) are added back. */
  private catchUpIndex(): void {
    for (const id of this.vault.vectorIds()) {
      if (this.index.has(id)) continue;
      const vec = this.vault.vector(id);
      if (vec) this.index.add(id, vec);
    }
  }

  create(msg: CreateEntry): Written {
    const now = this.opts.clock.now();
    const replay = msg.idempotencyKey
      ? this.vault.idempotent(msg.idempotencyKey, now, IDEMPOTENCY_TTL_MS)
      : undefined;
    if (replay) return { status: 200, entry: replay.body as Entry, committed: Promise.resolve() };
    const prepared = this.prepare(msg.draft, msg.createdBy, now);
    if ("existing" in prepared)
      return { status: 200, entry: prepared.existing.entry, committed: Promise.resolve() };
    const set = this.writeSetOf(prepared, msg.vector);
    if (msg.idempotencyKey) {
      set.idempotency = {
        key: msg.idempotencyKey,
        record: { at: now, status: 201, body: prepared.stored.entry },
      };
    }
    return { status: 201, entry: prepared.stored.entry, committed: this.commit(set, prepared, msg.vector) };
  }

  /**
   * Validates a draft against this tenant's entries and builds the stored entry with the updates it
   * implies, without writing anything. An entry of identical canonical content already stored is
   * returned as `existing` (the same entry, by CONTRACT §2).
   */
  prepare(draft: CreateEntry["draft"], createdBy: string, now: number): Prepared | { existing: StoredEntry } {
    const n = normaliseDraft(this.withCorrectionDefaults(draft), now);
    const updates = this.sideEffects(n, now);
    const identity = this.identityOf(n);
    const id = entryId(identity, (candidate) => this.takenByOther(candidate, identity), this.hash);
    const existing = this.vault.get(id);
    if (existing) return { existing };
    const entry = buildEntry(n, id, { tenantId: this.opts.tenantId, createdBy, now });
    return { stored: { seq: this.vault.nextSeq(), entry }, updates };
  }

  writeSetOf(prepared: Prepared, vector?: Float32Array): WriteSet {
    const set: WriteSet = { entries: [prepared.stored, ...prepared.updates], created: [prepared.stored] };
    if (vector) set.vectors = [[prepared.stored.entry.id, vector]];
    return set;
  }

  /** Writes the set (group commit) and makes the new entry searchable at once. */
  commit(set: WriteSet, prepared: Prepared | undefined, vector?: Float32Array): Promise<void> {
    const committed = this.vault.write(set);
    if (prepared) this.indexEntry(prepared.stored.entry, vector);
    return committed;
  }

  get(category: Category, id: string, includeEmbedding: boolean): Entry {
    const stored = this.vault.get(id);
    if (!stored || stored.entry.category !== category)
      throw new NotFound(`no ${category} ${id} in this tenant`);
    return this.present(stored.entry, includeEmbedding);
  }

  list(msg: ListEntries): { items: Entry[]; next_cursor: string | null } {
    const before = msg.cursor === undefined ? undefined : decodeCursor(msg.cursor);
    const scan = msg.tag
      ? this.vault.scanTag(msg.tag, before)
      : this.vault.scanCategory(msg.category, before);
    const time: TimeFilter = { asOf: msg.asOf, validAt: msg.validAt };
    const page: Array<{ seq: number; entry: Entry }> = [];
    for (const stored of scan) {
      if (stored.entry.category !== msg.category) continue;
      const view = visible(stored, time);
      if (!view || (msg.category === "outcome" && !this.decisionResolved(view))) continue;
      page.push({ seq: stored.seq, entry: view });
      if (page.length > msg.limit) break;
    }
    const more = page.length > msg.limit;
    const items = page.slice(0, msg.limit);
    return {
      items: items.map((p) => this.present(p.entry, msg.includeEmbedding)),
      next_cursor: more ? encodeCursor(items[items.length - 1]!.seq) : null,
    };
  }

  search(msg: SearchEntries): SearchResult[] {
    const accept = this.filterOf(msg);
    const text = msg.text?.trim() ? msg.text : undefined;
    if (!text && !msg.vector) return this.newest(msg, accept);
    const k = Math.max(msg.limit * 2, 20);
    const vector = msg.vector;
    const vectorHits = vector
      ? filteredHits(k, accept, (kk, filter) => this.index.search(vector, kk, filter))
      : [];
    const lexical = text ? this.lexicalIndex() : undefined;
    const lexicalHits =
      lexical && text ? filteredHits(k, accept, (kk, filter) => lexical.search(text, kk, filter)) : [];
    const fused = fuse(vectorHits, lexicalHits, {
      useVector: msg.vector !== undefined,
      useLexical: text !== undefined,
      limit: msg.limit,
      vectorScoreOf: msg.vector ? this.index.scorer(msg.vector) : undefined,
      lexicalScoreOf: lexical && text ? lexical.scorer(text) : undefined,
    });
    // A hit with nothing in common with the query (score 0) is noise, not a result.
    return fused
      .filter((hit) => hit.score > 0)
      .map((hit) => ({
        entry: accept.view(hit.id)!,
        score: round(hit.score),
        scores: roundScores(hit.scores),
      }));
  }

  /** Moves up to `limit` pending vectors into the graph; returns how many are still pending. */
  flushIndex(limit = Number.POSITIVE_INFINITY): number {
    this.index.flush(limit);
    return this.index.pending;
  }

  close(): void {
    this.index.save();
    this.index.close();
  }

  /** A filter-only search: newest first across the requested categories, score 0. */
  private newest(msg: SearchEntries, accept: Filter): SearchResult[] {
    const results: SearchResult[] = [];
    const scans = msg.categories.map((c) => this.vault.scanCategory(c));
    for (const stored of mergeNewestFirst(scans)) {
      if (!accept(stored.entry.id)) continue;
      results.push({ entry: accept.view(stored.entry.id)!, score: 0, scores: { vector: 0, lexical: 0 } });
      if (results.length >= msg.limit) break;
    }
    return results;
  }

  private filterOf(msg: SearchEntries): Filter {
    const categories = new Set<string>(msg.categories);
    const time: TimeFilter = { asOf: msg.asOf, validAt: msg.validAt };
    const views = new Map<string, Entry | undefined>();
    const check = (id: string): Entry | undefined => {
      const stored = this.vault.get(id);
      if (!stored || !categories.has(stored.entry.category)) return undefined;
      const view = visible(stored, time);
      if (!view) return undefined;
      const tags = view.tags ?? [];
      if (!msg.tags.every((t) => tags.includes(t))) return undefined;
      if (msg.tagsAny.length > 0 && !msg.tagsAny.some((t) => tags.includes(t))) return undefined;
      return view;
    };
    const accept = ((id: string) => {
      if (!views.has(id)) views.set(id, check(id));
      return views.get(id) !== undefined;
    }) as Filter;
    accept.view = (id) => (views.has(id) ? views.get(id) : check(id));
    return accept;
  }

  private lexicalIndex(): LexicalIndex {
    if (!this.lexical) {
      // Built on the first text search, so actors that never search never pay for it.
      const lexical = new LexicalIndex();
      for (const stored of this.vault.all()) lexical.add(stored.entry.id, stored.entry.content);
      // Writes still awaiting their commit are not in `all()` yet; `add` skips ids it already has.
      for (const stored of this.vault.pendingEntries()) lexical.add(stored.entry.id, stored.entry.content);
      this.lexical = lexical;
    }
    return this.lexical;
  }

  private indexEntry(entry: Entry, vector: Float32Array | undefined): void {
    if (vector) this.index.add(entry.id, vector);
    this.lexical?.add(entry.id, entry.content);
  }

  /** A correction takes the corrected entry's place, so it inherits its valid_from by default. */
  private withCorrectionDefaults(draft: CreateEntry["draft"]): CreateEntry["draft"] {
    if (!draft.corrects || draft.valid_from !== undefined) return draft;
    const target = this.vault.get(draft.corrects);
    return target ? { ...draft, valid_from: target.entry.valid_from } : draft;
  }

  /** Changes to other entries this write implies: supersession, correction, decision resolution. */
  private sideEffects(n: NormalisedDraft, now: number): StoredEntry[] {
    const updates: StoredEntry[] = [];
    const d = n.draft;
    if (d.supersedes) updates.push(this.supersede(d.supersedes, n.validFrom, now));
    if (d.corrects) updates.push(this.correct(d.corrects, now));
    if (d.category === "outcome") updates.push(this.resolveDecision(d.decision_id));
    return updates;
  }

  private supersede(targetId: string, validFrom: number, now: number): StoredEntry {
    const target = this.live(targetId, "/supersedes");
    if (validFrom <= Date.parse(target.entry.valid_from)) {
      invalid("/supersedes", "a superseding entry must become valid after the entry it supersedes");
    }
    const closesAt =
      target.entry.valid_to === null ? validFrom : Math.min(validFrom, Date.parse(target.entry.valid_to));
    return {
      ...target,
      prior_valid_to: target.prior_valid_to !== undefined ? target.prior_valid_to : target.entry.valid_to,
      entry: { ...target.entry, valid_to: isoOf(closesAt), invalidated_at: isoOf(now) },
    };
  }

  private correct(targetId: string, now: number): StoredEntry {
    const target = this.live(targetId, "/corrects");
    return { ...target, entry: { ...target.entry, expired_at: isoOf(now) } };
  }

  private resolveDecision(decisionId: string): StoredEntry {
    const decision = this.vault.get(decisionId);
    if (decision?.entry.category !== "decision") {
      invalid("/decision_id", "decision_id must name a decision of this tenant");
    }
    return { ...decision, entry: { ...decision.entry, status: "resolved" } };
  }

  private live(id: string, path: string): StoredEntry {
    const target = this.vault.get(id);
    if (!target) invalid(path, "no such entry in this tenant");
    if (target.entry.expired_at !== null) invalid(path, "that entry was already corrected");
    return target;
  }

  private decisionResolved(outcome: Entry): boolean {
    const decision = this.vault.get(String(outcome.decision_id));
    return decision?.entry.status === "resolved";
  }

  private identityOf(n: NormalisedDraft): IdentityContent {
    return {
      tenant: this.opts.tenantId,
      category: n.draft.category,
      content: n.draft.content,
      data: n.draft.data,
      valid_from: isoOf(n.validFrom),
      source: n.draft.source,
    };
  }

  private takenByOther(id: string, identity: IdentityContent): boolean {
    const stored = this.vault.get(id);
    if (!stored) return false;
    const e = stored.entry;
    const theirs: IdentityContent = {
      tenant: e.tenant_id,
      category: e.category,
      content: e.content,
      data: e.data,
      valid_from: e.valid_from,
      source: e.source,
    };
    return canonicalJson(theirs) !== canonicalJson(identity);
  }

  private present(entry: Entry, includeEmbedding: boolean): Entry {
    if (!includeEmbedding) return entry;
    const vec = this.vault.vector(entry.id);
    return { ...entry, embedding: vec ? Array.from(vec, round6) : [] };
  }
}

type Filter = ((id: string) => boolean) & { view(id: string): Entry | undefined };

/**
 * Most searches filter out few entries (the default is every category, valid and known now), so an
 * unfiltered search for a few more hits than needed, filtered afterwards, costs far fewer filter
 * checks than a search consulting the filter on every candidate. Only when too few hits survive
 * does it search again with the filter inside.
 */
function filteredHits(k: number, accept: Filter, search: (k: number, accept?: Filter) => Hit[]): Hit[] {
  const wide = search(k * 2);
  const kept = wide.filter((hit) => accept(hit.id));
  if (kept.length >= k || wide.length < k * 2) return kept.slice(0, k);
  return search(k, accept);
}

/** Merges newest-first scans (each ordered by descending seq) into one newest-first stream. */
function* mergeNewestFirst(scans: Generator<StoredEntry>[]): Generator<StoredEntry> {
  const heads = scans.map((s) => s.next());
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i]!;
      if (!h.done && (best < 0 || h.value.seq > (heads[best]!.value as StoredEntry).seq)) best = i;
    }
    if (best < 0) return;
    yield heads[best]!.value as StoredEntry;
    heads[best] = scans[best]!.next();
  }
}

function invalid(path: string, message: string): never {
  throw new ValidationFailed(`${path.slice(1)}: ${message}`, [{ path, message }]);
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;
const round6 = (x: number) => Math.round(x * 1e6) / 1e6;
const roundScores = (s: { vector: number; lexical: number }) => ({
  vector: round(s.vector),
  lexical: round(s.lexical),
});
