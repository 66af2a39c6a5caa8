import { AppError, InsufficientStorage } from "../../../src/errors.ts";
import type { Delivery, IngestItem, IngestSummary } from "../../../src/ingest/ingest-item.ts";
import { isoOf } from "../../../src/models/common.ts";
import type { DeadLetter } from "../../../src/models/dead-letter.ts";
import type { Clock } from "../../../src/runtime/clock.ts";
import type { IngestDraft } from "../../../src/sources/types.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import { emptySet, type WriteSet } from "../../../src/vault/write-set.ts";
import type { TenantMemory } from "../memory/memory.ts";
import { deadLetterOf, deadLetterSet, dedupeRecord, describe } from "./dead-letters.ts";
import { IngestStore } from "./ingest-store.ts";
import { deadLetterKey, decisionKey, dedupeKey } from "./keys.ts";
import { linkedDraft, UnknownReference } from "./linking.ts";

export interface ReplayReply {
  event_id: string;
  status: "replayed" | "dead";
  entries?: string[];
  last_error?: string;
}

interface EventOutcome {
  entries: string[];
  error?: string;
  committed: Promise<void>[];
}

export interface IngestOptions {
  tenantId: string;
  vault: TenantVault;
  memory: TenantMemory;
  clock: Clock;
}

/**
 * Webhook and connector ingestion inside the tenant actor: dedupe on (source, event_id), then per
 * event either entries (asked of the memory slice) or a dead letter. Every event's writes commit
 * with the group commit; the reply waits for all of them.
 */
export class TenantIngest {
  readonly store: IngestStore;
  private readonly vault: TenantVault;

  constructor(private readonly opts: IngestOptions) {
    this.vault = opts.vault;
    this.store = new IngestStore(opts.vault);
  }

  ingest(delivery: Delivery): { summary: IngestSummary; committed: Promise<void> } {
    const summary: IngestSummary = { accepted: 0, entries: [], duplicates: 0, dead_lettered: [], ignored: 0 };
    const commits: Promise<void>[] = [];
    for (const item of delivery.items) {
      const key = dedupeKey(delivery.source, item.event.event_id);
      if (this.store.deduped(key)) {
        summary.duplicates++;
        commits.push(...this.stateOnly(item));
        continue;
      }
      if (item.result.ok && item.result.ignored) {
        // A type the source does not map: counted, nothing kept (a redelivery is ignored again).
        summary.ignored++;
        commits.push(...this.stateOnly(item));
        continue;
      }
      const outcome = item.result.ok ? this.writeDrafts(delivery.source, item, key) : undefined;
      commits.push(...(outcome?.committed ?? []));
      commits.push(...this.splitOff(delivery, item, summary.dead_lettered));
      const error = item.result.ok ? outcome?.error : describe(item.result);
      if (error !== undefined) {
        commits.push(this.deadLetter(delivery, item, key, error));
        summary.dead_lettered.push(item.event.event_id);
        continue;
      }
      summary.accepted++;
      summary.entries.push(...(outcome?.entries ?? []));
    }
    return { summary, committed: Promise.all(commits).then(() => undefined) };
  }

  /** A connector's own state (its position, its status), written as it is. */
  writeState(state: Array<[string, unknown]>): Promise<void> {
    return this.vault.write(emptySet({ state }));
  }

  seen(source: string, eventId: string): boolean {
    return this.store.deduped(dedupeKey(source, eventId)) !== undefined;
  }

  /** Applies a replay's fresh mapping: entries and `replayed`, or one more failed attempt. */
  resolve(
    eventId: string,
    source: string,
    item: IngestItem,
  ): { reply: ReplayReply; committed: Promise<void> } {
    const record = deadLetterOf(this.store, eventId, source);
    if (record.status === "replayed") {
      return {
        reply: { event_id: eventId, status: "replayed", entries: record.entries ?? [] },
        committed: Promise.resolve(),
      };
    }
    const now = isoOf(this.opts.clock.now());
    const key = dedupeKey(record.source, eventId);
    const outcome = item.result.ok ? this.writeDrafts(record.source, item, key) : undefined;
    const split = this.splitOff({ source: record.source, items: [], headers: record.headers }, item, []);
    const error = item.result.ok ? outcome?.error : describe(item.result);
    const attempts = record.attempts + 1;
    const updated: DeadLetter =
      error === undefined
        ? { ...record, attempts, status: "replayed", entries: outcome?.entries ?? [], replayed_at: now }
        : { ...record, attempts, last_error: error };
    const committed = Promise.all([
      ...(outcome?.committed ?? []),
      ...split,
      this.vault.write(emptySet({ deadLetters: [[deadLetterKey(eventId, record.source), updated]] })),
    ]);
    const reply: ReplayReply =
      error === undefined
        ? { event_id: eventId, status: "replayed", entries: updated.entries }
        : { event_id: eventId, status: "dead", last_error: error };
    return { reply, committed: committed.then(() => undefined) };
  }

  /**
   * The parts an expansion split off an event for lacking what their entries need (a message of a
   * mail notification without a sender): each is a dead letter of its own, listed with the delivery's.
   */
  private splitOff(delivery: Delivery, item: IngestItem, deadLettered: string[]): Promise<void>[] {
    const commits: Promise<void>[] = [];
    for (const part of (item.result.ok && item.result.rejected) || []) {
      const key = dedupeKey(delivery.source, part.event.event_id);
      if (this.store.deduped(key)) continue;
      const failed = { ok: false as const, reason: part.reason, detail: part.detail };
      commits.push(this.deadLetter(delivery, { event: part.event, result: failed }, key, describe(failed)));
      deadLettered.push(part.event.event_id);
    }
    return commits;
  }

  /** Connector state of an item that writes nothing else (a duplicate, an ignored type): its position still moves on. */
  private stateOnly(item: IngestItem): Promise<void>[] {
    if (!item.state || item.state.length === 0) return [];
    return [this.vault.write(emptySet({ state: item.state, stateSeq: item.stateSeq }))];
  }

  /**
   * Writes one event's drafts; its dedupe record and the connector's state go in the last draft's
   * write set (one commit fewer an event), or alone for an event of no drafts. A draft the tenant
   * refuses stops the event (it becomes a dead letter, and no dedupe record is written here). Each
   * write joins the group commit; should the process die between them, a redelivery finds the same
   * content ids and writes nothing twice.
   */
  private writeDrafts(source: string, item: IngestItem, key: string): EventOutcome {
    const outcome: EventOutcome = { entries: [], committed: [] };
    const drafts = item.result.ok ? item.result.drafts : [];
    const now = this.opts.clock.now();
    const closing = (lastId?: string): Partial<WriteSet> => ({
      dedupe: dedupeRecord(key, now, lastId === undefined ? outcome.entries : [...outcome.entries, lastId]),
      ...(item.state ? { state: item.state } : {}),
      ...(item.stateSeq !== undefined ? { stateSeq: item.stateSeq } : {}),
    });
    for (const [i, ingest] of drafts.entries()) {
      const last = i === drafts.length - 1;
      try {
        const written = this.writeOne(
          ingest,
          source,
          item,
          item.vectors?.[i],
          now,
          last ? closing : undefined,
        );
        outcome.entries.push(written.id);
        outcome.committed.push(written.committed);
      } catch (error) {
        // A full vault refuses the whole delivery (507: the platform delivers it again), never dead-letters it.
        if (!(error instanceof AppError) || error instanceof InsufficientStorage) throw error;
        outcome.error = error instanceof UnknownReference ? error.message : `invalid_draft: ${error.message}`;
        return outcome;
      }
    }
    if (drafts.length === 0) outcome.committed.push(this.vault.write(emptySet(closing())));
    return outcome;
  }

  /**
   * One draft's entry, asked of the memory slice, with the objects index pointing at it: the
   * object's latest entry, and its latest decision (which an outcome about the same object resolves).
   */
  private writeOne(
    ingest: IngestDraft,
    source: string,
    item: IngestItem,
    vector: Float32Array | undefined,
    now: number,
    closing?: (id: string) => Partial<WriteSet>,
  ) {
    const draft = linkedDraft({ store: this.store, entries: this.opts.memory.entries }, ingest, source, item);
    const objectKey = ingest.object_key;
    const alongside = (id: string): Partial<WriteSet> => {
      const closed = closing?.(id) ?? {};
      if (!objectKey) return closed;
      const objects: Array<[string, string]> = [[objectKey, id]];
      if (draft.category === "decision") objects.push([decisionKey(objectKey), id]);
      return { ...closed, objects };
    };
    // A source asking to link the object's latest entry: superseded if the new one is valid after it.
    const follows = ingest.supersede_previous && objectKey ? this.store.objectLatest(objectKey) : undefined;
    return this.opts.memory.entryFromEvent({
      draft,
      by: `connector:${source}`,
      vector,
      now,
      follows,
      alongside,
    });
  }

  private deadLetter(delivery: Delivery, item: IngestItem, key: string, error: string): Promise<void> {
    const now = this.opts.clock.now();
    return this.vault.write(deadLetterSet(this.opts.tenantId, delivery, item, { key, now }, error));
  }
}
