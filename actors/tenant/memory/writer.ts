import type { StoredEntry } from "../../../src/memory/temporal.ts";
import type { Category } from "../../../src/models/category.ts";
import type { ChangeDraft } from "../../../src/models/change.ts";
import { isoOf } from "../../../src/models/common.ts";
import type { Entry } from "../../../src/models/entry.ts";
import type { Provenance, Trust } from "../../../src/models/origin.ts";
import { reachableLookup, type ScopeFilter } from "../../../src/models/scope.ts";
import type { CreateEntry } from "../../../src/protocols/tenant-protocol.ts";
import { checkTrust, type Overrides } from "../../../src/provenance/trust-rule.ts";
import type { Clock } from "../../../src/runtime/clock.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import type { WriteSet } from "../../../src/vault/write-set.ts";
import {
  atIndex,
  type BatchItem,
  type BatchReply,
  type BatchWritten,
  batchSet,
  type CreateMany,
} from "./batch.ts";
import type { EmbedBacklog } from "./embed-backlog.ts";
import { buildEntry, normaliseDraft } from "./entry-builder.ts";
import { type Sha8, sha8 } from "./entry-id.ts";
import { resolveEntryId } from "./entry-identity.ts";
import type { EntryStore } from "./entry-store.ts";
import { idempotencyRecord, replayed } from "./idempotency.ts";
import type { MemoryIndexes } from "./indexes.ts";
import { LegacyIds } from "./legacy-ids.ts";
import { type EntryLookup, type SideEffect, sideEffects, withCorrectionDefaults } from "./side-effects.ts";

/** How `prepare` reads entries (a batch's overlay), and who writes (provenance/trust-rule.ts). */
export interface PrepareOptions {
  lookup?: EntryLookup;
  /** A subject-restricted writer's reach: the only entries it may link to (scope.ts). */
  within?: ScopeFilter["within"];
  provenance?: Provenance;
  overrides?: Overrides;
}

/** The trust of a token retracting an entry, and what its roles let it override. */
export interface RetractingWriter {
  trust: Trust;
  overrides?: Overrides;
}

export interface Prepared {
  stored: StoredEntry;
  /** Other entries this one changes (superseded, corrected, the decision an outcome resolves). */
  updates: StoredEntry[];
  /** The change log's records of this write: the entry created, and what it did to the others. */
  changes: ChangeDraft[];
}

export interface Written {
  status: 200 | 201;
  entry: Entry;
  /** The stored first answer to an Idempotency-Key used before: nothing was written this time. */
  replayed?: true;
  /** Resolves once the write set has committed. */
  committed: Promise<void>;
}

export interface WriterOptions {
  tenantId: string;
  vault: TenantVault;
  entries: EntryStore;
  indexes: MemoryIndexes;
  clock: Clock;
  hash?: Sha8;
  /** Where new entries without a vector wait for one (none: they stay without). */
  backlog?: EmbedBacklog;
}

/**
 * Entry writes with their bi-temporal side effects (supersession, correction, an outcome resolving
 * its decision), content-addressed ids, idempotency, retraction. Each write is one write set
 * committed in one transaction (group-committed with the writes of other messages).
 */
export class MemoryWriter {
  private readonly vault: TenantVault;
  private readonly entries: EntryStore;
  private readonly hash: Sha8;
  /** Whether ids must also be looked up under the earlier rule (legacy-ids.ts). */
  private readonly legacyIds: LegacyIds;

  constructor(private readonly opts: WriterOptions) {
    this.vault = opts.vault;
    this.entries = opts.entries;
    this.hash = opts.hash ?? sha8;
    this.legacyIds = new LegacyIds(opts.vault, opts.entries, this.hash);
  }

  /** Before the vault closes: records how far its entries are known to follow the current id rule. */
  close(): void {
    this.legacyIds.close();
  }

  create(msg: CreateEntry): Written {
    const now = this.opts.clock.now();
    const replay = replayed(this.entries, msg.idempotencyKey, msg.draft, now);
    if (replay)
      return { status: 200, entry: replay.body as Entry, replayed: true, committed: Promise.resolve() };
    const prepared = this.prepare(msg.draft, msg.createdBy, now, msg);
    if ("existing" in prepared)
      return { status: 200, entry: prepared.existing.entry, committed: Promise.resolve() };
    const set = this.writeSetOf(prepared, msg.vector);
    if (msg.idempotencyKey)
      set.idempotency = idempotencyRecord(msg.idempotencyKey, msg.draft, now, 201, prepared.stored.entry);
    return { status: 201, entry: prepared.stored.entry, committed: this.commit(set, prepared, msg.vector) };
  }

  /**
   * A batch: every draft prepared in order (each sees the ones before it: a batch may supersede or
   * resolve its own entries) before anything is written, then one write set, one transaction. A
   * draft the tenant refuses refuses the batch, naming its index; nothing is written.
   */
  createMany(msg: CreateMany): BatchWritten {
    const now = this.opts.clock.now();
    const replay = replayed(this.entries, msg.idempotencyKey, msg.drafts, now);
    if (replay)
      return { status: 200, reply: replay.body as BatchReply, replayed: true, committed: Promise.resolve() };
    const overlay = new Map<string, StoredEntry>();
    const lookup: EntryLookup = (id) => overlay.get(id) ?? this.entries.get(id);
    const reply: BatchReply = { entries: [], statuses: [] };
    const created: BatchItem[] = [];
    msg.drafts.forEach((draft, i) => {
      const prepared = atIndex(i, () => this.prepare(draft, msg.createdBy, now, { ...msg, lookup }));
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
    const set = batchSet(created, [...overlay.values()], now);
    if (msg.idempotencyKey)
      set.idempotency = idempotencyRecord(msg.idempotencyKey, msg.drafts, now, status, reply);
    return { status, reply, committed: this.commitBatch(set, created) };
  }

  /**
   * Validates a draft against this tenant's entries and builds the stored entry with the updates it
   * implies, without writing anything. An entry of identical canonical content already stored is
   * returned as `existing` (the same entry, by CONTRACT §2). `lookup` lets a batch see its own
   * earlier items. The entry carries `provenance` (default: an agent named `createdBy`); what it
   * supersedes or corrects must not outrank it unless `overrides` allows (provenance/trust-rule.ts).
   */
  prepare(
    draft: CreateEntry["draft"],
    createdBy: string,
    now: number,
    options: PrepareOptions = {},
  ): Prepared | { existing: StoredEntry } {
    const lookup = options.lookup ?? ((id: string) => this.entries.get(id));
    // Links name entries in the writer's reach only; the identity below still sees every entry.
    const linked = reachableLookup(lookup, options.within);
    const n = normaliseDraft(withCorrectionDefaults(draft, linked), now);
    const effects = sideEffects(n, now, linked);
    const provenance = options.provenance ?? agentProvenance(createdBy);
    checkLinks(effects, provenance.trust, options.overrides);
    const ctx = { tenantId: this.opts.tenantId, createdBy, now, provenance };
    const candidate = buildEntry(n, "", ctx);
    const resolved = resolveEntryId(candidate, lookup, this.hash, this.legacyIds.present);
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
    const committed = this.write(set);
    if (prepared) this.opts.indexes.add(prepared.stored.entry, vector);
    return committed;
  }

  /** Writes a batch's one set (group commit) and makes its new entries searchable at once. */
  commitBatch(set: WriteSet, created: BatchItem[]): Promise<void> {
    const committed = this.write(set);
    for (const { prepared, vector } of created) this.opts.indexes.add(prepared.stored.entry, vector);
    return committed;
  }

  /**
   * Writes a set of new entries: those without a vector are queued for the background embedder in
   * the same transaction, and the embedder is woken once they are committed.
   */
  private write(set: WriteSet): Promise<void> {
    const backlog = this.opts.backlog;
    backlog?.annotate(set);
    this.legacyIds.wrote(set.created.length);
    let committed: Promise<void>;
    try {
      committed = this.vault.write(set);
    } catch (error) {
      // Refused before anything was queued (the vault at its ceiling): nothing was staged either.
      if (set.embedding) backlog?.settled(set, false);
      throw error;
    }
    if (backlog && set.embedding)
      committed.then(
        () => backlog.settled(set, true),
        () => backlog.settled(set, false),
      );
    return committed;
  }

  /**
   * Retraction: the runtime stops knowing the entry from now on (transaction time: `expired_at`),
   * while a view `as_of` an earlier time still shows it. Retracting what is already retracted or
   * corrected changes nothing and answers the entry as it is. What the entry superseded or
   * corrected stays as it is: write a new entry to restore it.
   */
  retract(stored: StoredEntry, category: Category, by: string, writer?: RetractingWriter): Written {
    if (stored.entry.expired_at !== null)
      return { status: 200, entry: stored.entry, committed: Promise.resolve() };
    if (writer) checkTrust(stored.entry, writer.trust, writer.overrides, "retract");
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

/** A write of no stated provenance is an agent's own statement. */
function agentProvenance(sub: string): Provenance {
  return { origin: { kind: "agent", sub }, trust: "agent" };
}

/** The entries a write supersedes or corrects must not outrank its writer (an outcome's decision may). */
function checkLinks(effects: SideEffect[], writer: Trust, overrides: Overrides | undefined): void {
  for (const { stored, type } of effects) {
    if (type === "decision.resolved") continue;
    checkTrust(stored.entry, writer, overrides, type === "entry.superseded" ? "supersede" : "correct");
  }
}
