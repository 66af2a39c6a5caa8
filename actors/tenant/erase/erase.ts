import { NotFound } from "../../../src/errors/domain-errors.ts";
import type { StoredEntry } from "../../../src/memory/temporal.ts";
import type { ChangeDraft } from "../../../src/models/change.ts";
import { isoOf } from "../../../src/models/common.ts";
import type { EraseReport, EraseRequest } from "../../../src/models/erase.ts";
import type { Clock } from "../../../src/runtime/clock.ts";
import { later } from "../../../src/runtime/later.ts";
import { markForCompaction } from "../../../src/vault/compact.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import type { WebhookRecords } from "../../../src/vault/webhook-records.ts";
import type { Erasure } from "../../../src/vault/write-set.ts";
import type { TenantIngest } from "../ingest/ingest.ts";
import type { EntryStore } from "../memory/entry-store.ts";
import type { TenantMemory } from "../memory/memory.ts";
import type { SliceHandlers } from "../slice.ts";
import { Tombstones, tombstoneOf } from "./tombstones.ts";

/** Fields an erasure's subject is not looked for in: the server's own ids and times. */
const NOT_CONTENT = new Set([
  "id",
  "tenant_id",
  "recorded_at",
  "expired_at",
  "invalidated_at",
  "valid_from",
  "valid_to",
]);

export interface ErasureOptions {
  vault: TenantVault;
  memory: TenantMemory;
  ingest: TenantIngest;
  clock: Clock;
}

/**
 * Erasure (GDPR's right to erasure, XTDB's ERASE): matching entries are removed across both time
 * axes — the entry, every index key, its vector, the idempotency records that answer it and the
 * dead letters that carry its content — leaving a tombstone `{id, category, erased_at}` so that
 * references to it stay explainable. The dedupe records stay (they hold ids only), so a redelivered
 * event cannot bring erased content back. The vault is then compacted (src/vault/compact.ts).
 */
export class TenantErasure {
  private readonly tombstones: Tombstones;

  constructor(private readonly opts: ErasureOptions) {
    this.tombstones = new Tombstones(opts.vault);
  }

  handlers(): SliceHandlers<"memory.erase"> {
    return {
      "memory.erase": ({ request, by }) => {
        const { report, committed } = this.erase(request, by);
        return later(committed.then(() => report));
      },
    };
  }

  erase(req: EraseRequest, by: string): { report: EraseReport; committed: Promise<void> } {
    const now = this.opts.clock.now();
    const { matched, alreadyErased } = this.match(req);
    const erasedIds = new Set(matched.keys());
    const needle = req.subject?.toLowerCase();
    const deadLetters = this.deadLettersCarrying(erasedIds, needle);
    const idempotency = this.idempotencyAnswering(erasedIds);
    const webhooks = this.deliveriesOf(erasedIds, needle);
    const deliveriesRemoved = (webhooks.purgedLog?.length ?? 0) + (webhooks.released?.length ?? 0);
    const report: EraseReport = {
      erased: [...matched.values()].map((s) => ({ id: s.entry.id, category: s.entry.category })),
      already_erased: alreadyErased,
      dead_letters_removed: deadLetters.length,
      idempotency_records_removed: idempotency.length,
      deliveries_removed: deliveriesRemoved,
      erased_at: isoOf(now),
      dry_run: req.dry_run === true,
    };
    const nothing =
      matched.size === 0 && deadLetters.length === 0 && idempotency.length === 0 && deliveriesRemoved === 0;
    if (req.dry_run || nothing) return { report, committed: Promise.resolve() };
    // Before the transaction: should the process die after it, the next open still compacts.
    markForCompaction(this.opts.vault.dir);
    const erasure: Erasure = {
      entries: [...matched.values()],
      tombstones: [...matched.values()].map((s) => tombstoneOf(s, now, by)),
      deadLetters,
      idempotency,
    };
    const changes: ChangeDraft[] = erasure.entries.map((s) => ({
      type: "entry.erased",
      id: s.entry.id,
      category: s.entry.category,
      by,
    }));
    const committed = this.opts.vault.write({
      entries: [],
      created: [],
      erase: erasure,
      changes,
      webhooks,
      at: now,
    });
    const { indexes, backlog } = this.opts.memory;
    indexes.forget(erasedIds);
    // A vector on its way for an erased entry must not be stored after the erasure.
    backlog?.forget(erasedIds);
    // A failed commit (a full disk) erased nothing: the entries' vectors go back into the index.
    committed.catch(() => indexes.restore(erasedIds));
    return { report, committed };
  }

  /** The entries the request names: by id, by tag, or mentioning the subject anywhere in their content. */
  private match(req: EraseRequest): { matched: Map<string, StoredEntry>; alreadyErased: string[] } {
    const { entries } = this.opts.memory;
    const matched = new Map<string, StoredEntry>();
    const alreadyErased: string[] = [];
    const unknown: string[] = [];
    for (const id of new Set(req.ids ?? [])) {
      const stored = entries.get(id);
      if (stored) matched.set(id, stored);
      else if (this.tombstones.of(id)) alreadyErased.push(id);
      else unknown.push(id);
    }
    if (unknown.length > 0)
      throw new NotFound(`no entries ${unknown.slice(0, 10).join(", ")} in this tenant`);
    for (const tag of new Set(req.tags ?? []))
      for (const stored of entries.scanTag(tag)) matched.set(stored.entry.id, stored);
    const needle = req.subject?.toLowerCase();
    if (needle) {
      for (const stored of everyEntry(entries))
        if (mentions(stored, needle)) matched.set(stored.entry.id, stored);
    }
    return { matched, alreadyErased };
  }

  private deadLettersCarrying(ids: Set<string>, needle: string | undefined): string[] {
    const keys: string[] = [];
    for (const [key, value] of this.opts.ingest.store.deadLetterRecords()) {
      const record = value as { entries?: string[]; payload?: unknown };
      const wrote = record.entries?.some((id) => ids.has(id)) ?? false;
      const names =
        needle !== undefined &&
        JSON.stringify(record.payload ?? null)
          .toLowerCase()
          .includes(needle);
      if (wrote || names) keys.push(key);
    }
    return keys;
  }

  /**
   * The delivery log's records of the erased entries or naming the subject (ids and types only,
   * but an event id may carry it: a mail's address), and the held events whose body names it
   * (released without being applied: the erasure covers what has not arrived in memory yet).
   */
  private deliveriesOf(ids: Set<string>, needle: string | undefined): WebhookRecords {
    const { log, held } = this.opts.ingest;
    const names = (text: string) => needle !== undefined && text.toLowerCase().includes(needle);
    const purgedLog = log.keysWhere(
      (r) => r.entries.some((id) => ids.has(id)) || names(r.event_id) || names(r.event_type),
    );
    const released = [];
    for (const h of held.all())
      if (names(h.event_id) || names(JSON.stringify(h.payload ?? null)))
        released.push({ source: h.source, seq: h.seq, event_id: h.event_id });
    return { purgedLog, released };
  }

  private idempotencyAnswering(ids: Set<string>): string[] {
    const keys: string[] = [];
    for (const [key, record] of this.opts.memory.entries.idempotencyRecords()) {
      const answered = (record.body as { id?: unknown } | undefined)?.id;
      if (typeof answered === "string" && ids.has(answered)) keys.push(key);
    }
    return keys;
  }
}

/** Committed entries, then those still committing (read one by one: a vault may be large). */
function* everyEntry(entries: EntryStore): Generator<StoredEntry> {
  yield* entries.all();
  yield* entries.pending();
}

function mentions(stored: StoredEntry, needle: string): boolean {
  const fields = Object.entries(stored.entry).filter(([k]) => !NOT_CONTENT.has(k));
  return JSON.stringify(Object.fromEntries(fields)).toLowerCase().includes(needle);
}
