import { createHash } from "node:crypto";
import { IdempotencyMismatch, ValidationFailed } from "../../../src/errors.ts";
import type { StoredEntry } from "../../../src/memory/temporal.ts";
import type { Category } from "../../../src/models/category.ts";
import type { ChangeDraft } from "../../../src/models/change.ts";
import { isoOf } from "../../../src/models/common.ts";
import type { Entry, EntryDraft } from "../../../src/models/entry.ts";
import type { CreateEntry } from "../../../src/protocols/tenant-protocol.ts";
import type { Clock } from "../../../src/runtime/clock.ts";
import type { TenantVault, WriteSet } from "../../../src/vault/tenant-vault.ts";
import { buildEntry, type NormalisedDraft, normaliseDraft } from "./entry-builder.ts";
import { canonicalJson, type Sha8, sha8 } from "./entry-id.ts";
import { resolveEntryId } from "./entry-identity.ts";
import type { MemoryIndexes } from "./indexes.ts";

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

export interface Prepared {
  stored: StoredEntry;
  /** Other entries this one changes (superseded, corrected, the decision an outcome resolves). */
  updates: StoredEntry[];
  /** The change log's records of this write: the entry created, and what it did to the others. */
  changes: ChangeDraft[];
}

/** An update another entry's write implies, and the change it is. */
interface SideEffect {
  stored: StoredEntry;
  type: "entry.superseded" | "entry.corrected" | "decision.resolved";
}

export interface Written {
  status: 200 | 201;
  entry: Entry;
  /** Resolves once the write set has committed. */
  committed: Promise<void>;
}

/** Where `prepare` reads entries: the vault, or the vault overlaid with a batch written so far. */
export type EntryLookup = (id: string) => StoredEntry | undefined;

export interface WriterOptions {
  tenantId: string;
  vault: TenantVault;
  indexes: MemoryIndexes;
  clock: Clock;
  hash?: Sha8;
}

/**
 * Entry writes with their bi-temporal side effects (supersession, correction, an outcome resolving
 * its decision), content-addressed ids, idempotency, retraction. Each write is one write set
 * committed in one transaction (group-committed with the writes of other messages).
 */
export class MemoryWriter {
  private readonly vault: TenantVault;
  private readonly hash: Sha8;

  constructor(private readonly opts: WriterOptions) {
    this.vault = opts.vault;
    this.hash = opts.hash ?? sha8;
  }

  create(msg: CreateEntry): Written {
    const now = this.opts.clock.now();
    const replay = this.replayed(msg.idempotencyKey, msg.draft, now);
    if (replay) return { status: 200, entry: replay.body as Entry, committed: Promise.resolve() };
    const prepared = this.prepare(msg.draft, msg.createdBy, now);
    if ("existing" in prepared)
      return { status: 200, entry: prepared.existing.entry, committed: Promise.resolve() };
    const set = this.writeSetOf(prepared, msg.vector);
    if (msg.idempotencyKey)
      set.idempotency = this.idempotencyRecord(
        msg.idempotencyKey,
        msg.draft,
        now,
        201,
        prepared.stored.entry,
      );
    return { status: 201, entry: prepared.stored.entry, committed: this.commit(set, prepared, msg.vector) };
  }

  /**
   * A batch: every draft prepared in order (each sees the ones before it: a batch may supersede or
   * resolve its own entries) before anything is written, then one write set, one transaction. A
   * draft the tenant refuses refuses the batch, naming its index; nothing is written.
   */
  createMany(msg: CreateMany): BatchWritten {
    const now = this.opts.clock.now();
    const replay = this.replayed(msg.idempotencyKey, msg.drafts, now);
    if (replay) return { status: 200, reply: replay.body as BatchReply, committed: Promise.resolve() };
    const overlay = new Map<string, StoredEntry>();
    const lookup: EntryLookup = (id) => overlay.get(id) ?? this.vault.get(id);
    const reply: BatchReply = { entries: [], statuses: [] };
    const created: Array<{ prepared: Prepared; vector?: Float32Array }> = [];
    msg.drafts.forEach((draft, i) => {
      const prepared = atIndex(i, () => this.prepare(draft, msg.createdBy, now, lookup));
      if ("existing" in prepared) {
        reply.entries.push(prepared.existing.entry);
        reply.statuses.push(200);
        return;
      }
      for (const s of [prepared.stored, ...prepared.updates]) overlay.set(s.entry.id, s);
      created.push({ prepared, vector: msg.vectors[i] });
      reply.entries.push(prepared.stored.entry);
      reply.statuses.push(201);
    });
    const status = created.length > 0 ? 201 : 200;
    if (created.length === 0 && !msg.idempotencyKey) return { status, reply, committed: Promise.resolve() };
    const set = this.batchSet(created, [...overlay.values()], now);
    if (msg.idempotencyKey)
      set.idempotency = this.idempotencyRecord(msg.idempotencyKey, msg.drafts, now, status, reply);
    const committed = this.vault.write(set);
    for (const { prepared, vector } of created) this.opts.indexes.add(prepared.stored.entry, vector);
    return { status, reply, committed };
  }

  /** One write set for a batch: each entry in its final state, every change in order. */
  private batchSet(
    created: Array<{ prepared: Prepared; vector?: Float32Array }>,
    entries: StoredEntry[],
    now: number,
  ): WriteSet {
    const vectors: Array<[string, Float32Array]> = [];
    for (const { prepared, vector } of created) if (vector) vectors.push([prepared.stored.entry.id, vector]);
    return {
      entries,
      created: created.map((c) => c.prepared.stored),
      changes: created.flatMap((c) => c.prepared.changes),
      vectors,
      at: now,
    };
  }

  /**
   * The first answer under an Idempotency-Key used within 24 h, if any; the same key with another
   * body is refused (422 idempotency_mismatch). A reply from a write still in flight waits for its
   * commit: the tenant actor sees to that.
   */
  replayed(
    key: string | undefined,
    request: unknown,
    now: number,
  ): { status: number; body: unknown } | undefined {
    if (!key) return undefined;
    const record = this.vault.idempotent(key, now, IDEMPOTENCY_TTL_MS);
    if (!record) return undefined;
    if (record.request !== undefined && record.request !== requestDigest(request))
      throw new IdempotencyMismatch("this Idempotency-Key was used with a different request body");
    return record;
  }

  idempotencyRecord(key: string, request: unknown, now: number, status: number, body: unknown) {
    return { key, record: { at: now, status, body, request: requestDigest(request) } };
  }

  /**
   * Validates a draft against this tenant's entries and builds the stored entry with the updates it
   * implies, without writing anything. An entry of identical canonical content already stored is
   * returned as `existing` (the same entry, by CONTRACT §2). `lookup` lets a batch see its own
   * earlier items.
   */
  prepare(
    draft: CreateEntry["draft"],
    createdBy: string,
    now: number,
    lookup: EntryLookup = (id) => this.vault.get(id),
  ): Prepared | { existing: StoredEntry } {
    const n = normaliseDraft(withCorrectionDefaults(draft, lookup), now);
    const effects = sideEffects(n, now, lookup);
    const candidate = buildEntry(n, "", { tenantId: this.opts.tenantId, createdBy, now });
    const resolved = resolveEntryId(candidate, lookup, this.hash);
    if ("existing" in resolved) return resolved;
    const id = resolved.id;
    const entry: Entry = { ...candidate, id };
    const changes: ChangeDraft[] = [
      { type: "entry.created", id, category: entry.category, by: createdBy },
      ...effects.map(({ stored, type }) => ({
        type,
        id: stored.entry.id,
        category: stored.entry.category,
        by: createdBy,
        related: id,
      })),
    ];
    return {
      stored: { seq: this.vault.nextSeq(), entry },
      updates: effects.map((e) => e.stored),
      changes,
    };
  }

  writeSetOf(prepared: Prepared, vector?: Float32Array): WriteSet {
    const set: WriteSet = {
      entries: [prepared.stored, ...prepared.updates],
      created: [prepared.stored],
      changes: prepared.changes,
      at: Date.parse(prepared.stored.entry.recorded_at),
    };
    if (vector) set.vectors = [[prepared.stored.entry.id, vector]];
    return set;
  }

  /** Writes the set (group commit) and makes the new entry searchable at once. */
  commit(set: WriteSet, prepared: Prepared | undefined, vector?: Float32Array): Promise<void> {
    const committed = this.vault.write(set);
    if (prepared) this.opts.indexes.add(prepared.stored.entry, vector);
    return committed;
  }

  /**
   * Retraction: the runtime stops knowing the entry from now on (transaction time: `expired_at`),
   * while a view `as_of` an earlier time still shows it. Retracting what is already retracted or
   * corrected changes nothing and answers the entry as it is. What the entry superseded or
   * corrected stays as it is: write a new entry to restore it.
   */
  retract(stored: StoredEntry, category: Category, by: string): Written {
    if (stored.entry.expired_at !== null)
      return { status: 200, entry: stored.entry, committed: Promise.resolve() };
    const now = this.opts.clock.now();
    const id = stored.entry.id;
    const retracted: StoredEntry = { ...stored, entry: { ...stored.entry, expired_at: isoOf(now) } };
    const committed = this.vault.write({
      entries: [retracted],
      created: [],
      changes: [{ type: "entry.retracted", id, category, by }],
      at: now,
    });
    return { status: 200, entry: retracted.entry, committed };
  }
}

export interface CreateMany {
  drafts: EntryDraft[];
  createdBy: string;
  /** Each draft's embedding (or undefined), computed before the message. */
  vectors: Array<Float32Array | undefined>;
  idempotencyKey?: string;
}

/** A batch's answer: the entries in request order, each 201 (written) or 200 (already stored). */
export interface BatchReply {
  entries: Entry[];
  statuses: Array<200 | 201>;
}

export interface BatchWritten {
  status: 200 | 201;
  reply: BatchReply;
  committed: Promise<void>;
}

/** Runs a batch item's step; a refusal names the item (`entries/3: …`, paths `/entries/3/…`). */
function atIndex<T>(i: number, step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (!(error instanceof ValidationFailed)) throw error;
    const errors = (error.errors ?? []).map((e) => ({ ...e, path: `/entries/${i}${e.path}` }));
    throw new ValidationFailed(`entries/${i}: ${error.message}`, errors);
  }
}

/** A correction takes the corrected entry's place, so it inherits its valid_from by default. */
function withCorrectionDefaults(draft: EntryDraft, lookup: EntryLookup): EntryDraft {
  if (!draft.corrects || draft.valid_from !== undefined) return draft;
  const target = lookup(draft.corrects);
  return target ? { ...draft, valid_from: target.entry.valid_from } : draft;
}

/** Changes to other entries this write implies: supersession, correction, decision resolution. */
function sideEffects(n: NormalisedDraft, now: number, lookup: EntryLookup): SideEffect[] {
  const effects: SideEffect[] = [];
  const d = n.draft;
  if (d.supersedes)
    effects.push({ stored: supersede(lookup, d.supersedes, n.validFrom, now), type: "entry.superseded" });
  if (d.corrects) effects.push({ stored: correct(lookup, d.corrects, now), type: "entry.corrected" });
  if (d.category === "outcome")
    effects.push({ stored: resolveDecision(lookup, d.decision_id), type: "decision.resolved" });
  return effects;
}

function supersede(lookup: EntryLookup, targetId: string, validFrom: number, now: number): StoredEntry {
  const target = live(lookup, targetId, "/supersedes");
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

function correct(lookup: EntryLookup, targetId: string, now: number): StoredEntry {
  const target = live(lookup, targetId, "/corrects");
  return { ...target, entry: { ...target.entry, expired_at: isoOf(now) } };
}

function resolveDecision(lookup: EntryLookup, decisionId: string): StoredEntry {
  const decision = lookup(decisionId);
  if (decision?.entry.category !== "decision") {
    invalid("/decision_id", "decision_id must name a decision of this tenant");
  }
  return { ...decision, entry: { ...decision.entry, status: "resolved" } };
}

function live(lookup: EntryLookup, id: string, path: string): StoredEntry {
  const target = lookup(id);
  if (!target) invalid(path, "no such entry in this tenant");
  if (target.entry.expired_at !== null) invalid(path, "that entry was already corrected");
  return target;
}

/** What makes two requests under one Idempotency-Key the same: their bodies, canonically. */
function requestDigest(request: unknown): string {
  return createHash("sha256").update(canonicalJson(request)).digest("base64url");
}

function invalid(path: string, message: string): never {
  throw new ValidationFailed(`${path.slice(1)}: ${message}`, [{ path, message }]);
}
