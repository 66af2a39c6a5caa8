import type { TSchema } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import { AppError, InsufficientStorage, NotFound, ValidationFailed } from "../../../src/errors.ts";
import type { Delivery, IngestItem, IngestSummary } from "../../../src/ingest/ingest-item.ts";
import { CATEGORIES, type Category } from "../../../src/models/category.ts";
import { isoOf } from "../../../src/models/common.ts";
import type { DeadLetter } from "../../../src/models/dead-letter.ts";
import { ENTRY_INPUT, type EntryDraft } from "../../../src/models/entry.ts";
import type { Clock } from "../../../src/runtime/clock.ts";
import type { IngestDraft } from "../../../src/sources/types.ts";
import { deadLetterKey, type TenantVault, type WriteSet } from "../../../src/vault/tenant-vault.ts";
import type { TenantMemory } from "../memory/memory.ts";

/** Connector drafts are checked against the same schemas as API bodies before they are written. */
const CHECKERS = Object.fromEntries(
  CATEGORIES.map((c) => [c, TypeCompiler.Compile(ENTRY_INPUT[c])]),
) as unknown as Record<Category, TypeCheck<TSchema>>;

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

/**
 * Webhook and connector ingestion inside the tenant actor: dedupe on (source, event_id), then per
 * event either entries or a dead letter. Every event's writes commit with the group commit; the
 * reply waits for all of them.
 */
export class TenantIngest {
  constructor(
    private readonly tenantId: string,
    private readonly vault: TenantVault,
    private readonly memory: TenantMemory,
    private readonly clock: Clock,
  ) {}

  ingest(delivery: Delivery): { summary: IngestSummary; committed: Promise<void> } {
    const summary: IngestSummary = { accepted: 0, entries: [], duplicates: 0, dead_lettered: [], ignored: 0 };
    const commits: Promise<void>[] = [];
    for (const item of delivery.items) {
      const key = dedupeKey(delivery.source, item.event.event_id);
      if (this.vault.deduped(key)) {
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

  /**
   * The parts an expansion split off an event for lacking what their entries need (a message of a
   * mail notification without a sender): each is a dead letter of its own, listed with the delivery's.
   */
  private splitOff(delivery: Delivery, item: IngestItem, deadLettered: string[]): Promise<void>[] {
    const commits: Promise<void>[] = [];
    for (const part of (item.result.ok && item.result.rejected) || []) {
      const key = dedupeKey(delivery.source, part.event.event_id);
      if (this.vault.deduped(key)) continue;
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

  seen(source: string, eventId: string): boolean {
    return this.vault.deduped(dedupeKey(source, eventId)) !== undefined;
  }

  listDeadLetters(status: string | undefined, limit: number): DeadLetter[] {
    const out = (this.vault.allDeadLetters() as DeadLetter[]).filter((r) => !status || r.status === status);
    // Newest first; ties broken by id so the order is stable.
    out.sort((a, b) => b.received_at.localeCompare(a.received_at) || a.event_id.localeCompare(b.event_id));
    return out.slice(0, limit);
  }

  /** The dead letter of `eventId`; `source` picks one when two sources used the same id. */
  deadLetterOf(eventId: string, source?: string): DeadLetter {
    const records = (this.vault.deadLettersOf(eventId) as DeadLetter[]).filter(
      (r) => !source || r.source === source,
    );
    if (records.length === 0) throw new NotFound("no such dead letter in this tenant");
    if (records.length > 1) {
      const sources = records.map((r) => r.source).join(", ");
      throw new ValidationFailed(`event id is dead-lettered by several sources (${sources}): add ?source=`, [
        { path: "/source", message: "required when several sources used this event id" },
      ]);
    }
    return records[0]!;
  }

  /** Applies a replay's fresh mapping: entries and `replayed`, or one more failed attempt. */
  resolve(
    eventId: string,
    source: string,
    item: IngestItem,
  ): { reply: ReplayReply; committed: Promise<void> } {
    const record = this.deadLetterOf(eventId, source);
    if (record.status === "replayed") {
      return {
        reply: { event_id: eventId, status: "replayed", entries: record.entries ?? [] },
        committed: Promise.resolve(),
      };
    }
    const now = isoOf(this.clock.now());
    const key = dedupeKey(record.source, eventId);
    const outcome = item.result.ok ? this.writeDrafts(record.source, item, key) : undefined;
    const split = this.splitOff({ source: record.source, items: [], headers: record.headers }, item, []);
    const error = item.result.ok ? outcome?.error : describe(item.result);
    const updated: DeadLetter =
      error === undefined
        ? {
            ...record,
            attempts: record.attempts + 1,
            status: "replayed",
            entries: outcome?.entries ?? [],
            replayed_at: now,
          }
        : { ...record, attempts: record.attempts + 1, last_error: error };
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
   * Writes one event's drafts, then its dedupe record with the connector's state. A draft the
   * tenant refuses stops the event (it becomes a dead letter). Each write joins the group commit;
   * should the process die between them, a redelivery finds the same content ids and writes nothing twice.
   */
  private writeDrafts(source: string, item: IngestItem, key: string): EventOutcome {
    const outcome: EventOutcome = { entries: [], committed: [] };
    const drafts = item.result.ok ? item.result.drafts : [];
    const now = this.clock.now();
    for (const [i, ingest] of drafts.entries()) {
      try {
        outcome.entries.push(
          this.writeOne(this.linked(ingest, source, item), ingest, source, item.vectors?.[i], now, outcome),
        );
      } catch (error) {
        // A full vault refuses the whole delivery (507: the platform delivers it again), never dead-letters it.
        if (!(error instanceof AppError) || error instanceof InsufficientStorage) throw error;
        outcome.error = error instanceof UnknownReference ? error.message : `invalid_draft: ${error.message}`;
        return outcome;
      }
    }
    const closing = emptySet({
      dedupe: dedupeRecord(key, now, outcome.entries),
      state: item.state,
      stateSeq: item.stateSeq,
    });
    outcome.committed.push(this.vault.write(closing));
    return outcome;
  }

  private writeOne(
    draft: EntryDraft,
    ingest: IngestDraft,
    source: string,
    vector: Float32Array | undefined,
    now: number,
    outcome: EventOutcome,
  ): string {
    const prepared = this.memory.prepare(draft, `connector:${source}`, now);
    const fresh = "stored" in prepared ? prepared : undefined;
    const id = "stored" in prepared ? prepared.stored.entry.id : prepared.existing.entry.id;
    const set = fresh ? this.memory.writeSetOf(fresh, vector) : emptySet({});
    if (ingest.object_key) {
      set.objects = [[ingest.object_key, id]];
      // The decision an outcome about the same object resolves (see linked()).
      if (draft.category === "decision") set.objects.push([decisionKey(ingest.object_key), id]);
    }
    outcome.committed.push(this.memory.commit(set, fresh, vector));
    return id;
  }

  /**
   * Sets the source stamp; links an outcome to the latest decision about its object (or, with no
   * such decision, makes it a fact tagged `outcome`); and sets `supersedes` when the source asks to
   * link the object's latest entry.
   */
  private linked(ingest: IngestDraft, source: string, item: IngestItem): EntryDraft {
    const stamp = { system: source, event_id: item.event.event_id, event_type: item.event.event_type };
    const stamped = { ...ingest.draft, source: { ...stamp, ...ingest.draft.source } } as EntryDraft;
    const promoted = ingest.promotes ? this.promoting(stamped, source, ingest.promotes) : stamped;
    // An outcome names the decision it resolves, through its object or its own decision_id; one that
    // can name none (a payment of no known customer) is kept as a fact rather than dead-lettered.
    const unlinked = promoted.category === "outcome" && !("decision_id" in promoted && promoted.decision_id);
    const draft = ingest.outcome_of || unlinked ? this.outcomeOrFact(promoted, ingest.outcome_of) : promoted;
    const { category, ...body } = draft;
    if (!CHECKERS[category].Check(body)) {
      const first = CHECKERS[category].Errors(body).First();
      throw new InvalidDraft(`${first?.path || "/"} ${first?.message ?? "does not match its category"}`);
    }
    if (!ingest.supersede_previous || !ingest.object_key) return draft;
    const previous = this.vault.objectLatest(ingest.object_key);
    const target = previous ? this.vault.get(previous) : undefined;
    if (!target || target.entry.expired_at !== null || target.entry.invalidated_at !== null) return draft;
    // Supersession needs a later valid_from; an event stamped earlier simply stands alone.
    const from = draft.valid_from ? Date.parse(draft.valid_from) : this.clock.now();
    return from > Date.parse(target.entry.valid_from)
      ? ({ ...draft, supersedes: target.entry.id } as EntryDraft)
      : draft;
  }

  /** A decision promoting a message this tenant holds (found through the message event's dedupe record). */
  private promoting(draft: EntryDraft, source: string, messageEventId: string): EntryDraft {
    const record = this.vault.deduped(dedupeKey(source, messageEventId));
    const messageId = record?.entries[0];
    const message = messageId ? this.vault.get(messageId) : undefined;
    if (!message) throw new UnknownReference(`unknown_message: no message ${messageEventId} has arrived`);
    const data = {
      ...((draft as { data?: Record<string, unknown> }).data ?? {}),
      message_id: message.entry.id,
    };
    return { ...draft, content: message.entry.content, rationale: draft.content, data } as EntryDraft;
  }

  private outcomeOrFact(draft: EntryDraft, objectKey: string | undefined): EntryDraft {
    const decisionId = objectKey ? this.vault.objectLatest(decisionKey(objectKey)) : undefined;
    const decision = decisionId ? this.vault.get(decisionId) : undefined;
    if (decision?.entry.category === "decision" && decision.entry.expired_at === null) {
      return { ...draft, category: "outcome", decision_id: decision.entry.id } as EntryDraft;
    }
    // No decision to resolve: a fact that keeps what the outcome said (SOURCES.md).
    const {
      category: _c,
      result,
      amount,
      currency,
      decision_id: _d,
      ...rest
    } = draft as Record<string, unknown>;
    const tags = [...new Set(["outcome", ...((rest.tags as string[] | undefined) ?? [])])].slice(0, 64);
    const said = Object.entries({ result, amount, currency }).filter(([, v]) => v !== undefined);
    const data = {
      ...((rest.data as Record<string, unknown> | undefined) ?? {}),
      ...Object.fromEntries(said),
    };
    return { ...rest, category: "fact", tags, data } as unknown as EntryDraft;
  }

  private deadLetter(delivery: Delivery, item: IngestItem, key: string, error: string): Promise<void> {
    const now = this.clock.now();
    const record: DeadLetter = {
      event_id: item.event.event_id,
      tenant_id: this.tenantId,
      source: delivery.source,
      event_type: item.event.event_type,
      received_at: isoOf(now),
      attempts: 1,
      last_error: error,
      status: "dead",
      payload: item.event.payload,
      headers: delivery.headers,
    };
    // A connector's position moves past a dead letter too, in the same commit.
    return this.vault.write(
      emptySet({
        deadLetters: [[deadLetterKey(record.event_id, record.source), record]],
        changes: [
          {
            type: "deadletter.created",
            id: record.event_id,
            source: record.source,
            by: `connector:${record.source}`,
          },
        ],
        at: now,
        dedupe: dedupeRecord(key, now, []),
        state: item.state,
        stateSeq: item.stateSeq,
      }),
    );
  }
}

class InvalidDraft extends AppError {
  override readonly status = 422;
  override readonly code = "validation_failed";
}

/** A draft referring to something the tenant does not hold (yet): its message is the dead letter's reason. */
class UnknownReference extends AppError {
  override readonly status = 422;
  override readonly code = "validation_failed";
}

function describe(result: { ok: false; reason: string; detail?: string }): string {
  return result.detail ? `${result.reason}: ${result.detail}` : result.reason;
}

/** The objects-index key under which the latest decision about an object is kept. */
function decisionKey(objectKey: string): string {
  return `decision\u0000${objectKey}`;
}

export function dedupeKey(source: string, eventId: string): string {
  return `${source}\u0000${eventId}`;
}

function dedupeRecord(key: string, at: number, entries: string[]) {
  return { key, record: { at, entries } };
}

function emptySet(extra: Partial<WriteSet>): WriteSet {
  return { entries: [], created: [], ...extra };
}
