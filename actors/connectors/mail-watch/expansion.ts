/**
 * Expansion: a push notification only says "the mailbox moved to history N". The history is paged
 * from the stored high-water mark (never from the notification's id), each new message's metadata
 * read, and the history mapped to drafts. The new mark travels back in the reply's `state`, so the
 * tenant commits it in the same transaction as the entries; it moves in memory at once, and since
 * the actor handles one notification at a time, two in a row never expand the same range twice.
 *   - No stored mark: the history id of the watch (recorded when the watch started) is used; with
 *     no watch either, the notification's own id becomes the mark and nothing is written (history
 *     before it cannot be told apart from history already seen).
 *   - A notification already expanded (a redelivery) consumes nothing: the tenant counts it as a
 *     duplicate, and the history since the mark is left for the next notification.
 *   - A mark older than the API keeps (404) is replaced by the notification's id and the gap is
 *     dead-lettered as `mail_history_expired`.
 *   - Without credentials: `mail_api_not_configured`; API failures: `mail_api_error: <status> (...)`.
 *     Both are dead letters that a replay expands again once the cause is gone. A passing failure
 *     (429, 5xx, no answer) is queued for the connector's own catch-up (catch-up.ts).
 */
import { errorMessage } from "../../../src/connectors/transport.ts";
import { isoOf } from "../../../src/models/common.ts";
import type { MailExpansion } from "../../../src/protocols/connector-protocol.ts";
import type { Clock } from "../../../src/runtime/clock.ts";
import {
  type HistoryRecord,
  type MailApiClient,
  MailApiError,
  type MessageMeta,
} from "../../../src/sources/mail/api.ts";
import { mapMailHistory } from "../../../src/sources/mail/history.ts";
import type { IngestDraft, MapResult, SourceEvent } from "../../../src/sources/types.ts";
import type { CatchUpQueue, ReplayDeadLetter } from "./catch-up.ts";
import { describeError, isPassing, type MailAccess } from "./mail-access.ts";
import { MAIL_STATE, type MailWatchState } from "./state.ts";

const MESSAGE_FETCH_CONCURRENCY = 8;

export interface ExpansionDeps {
  clock: Clock;
  /** Without it, failed expansions are not queued for catch-up: they wait for an operator. */
  replay?: ReplayDeadLetter;
  /**
   * The messages of an expansion once committed, appended to their threads' sessions where the
   * tenant turns it on (src/conversations/door.ts).
   */
  converse?: (event: SourceEvent, drafts: IngestDraft[]) => void;
}

/** Committed expansions awaited at most: a commit never settled does not hold its drafts forever. */
const MAX_UNSETTLED = 64;

export class Expansion {
  /** Expansions with messages, waiting for the tenant's word on their commit (`converse` only). */
  private readonly unsettled = new Map<string, { event: SourceEvent; drafts: IngestDraft[] }>();

  constructor(
    private readonly state: MailWatchState,
    private readonly access: MailAccess,
    private readonly catchUp: CatchUpQueue,
    private readonly deps: ExpansionDeps,
  ) {}

  /** Never throws: whatever goes wrong becomes a dead-letter reason, not a 500 of the webhook. */
  async expand(event: SourceEvent): Promise<MailExpansion> {
    try {
      return await this.expandOrThrow(event);
    } catch (error) {
      return {
        result: { ok: false, reason: "mail_expand_failed", detail: errorMessage(error).slice(0, 300) },
      };
    }
  }

  /** The tenant's word on an expansion's commit: a refused one is undone (expansion-memory.ts). */
  settled(eventId: string, committed: boolean): void {
    const expanded = this.unsettled.get(eventId);
    this.unsettled.delete(eventId);
    if (expanded && committed) this.deps.converse?.(expanded.event, expanded.drafts);
    const { memory } = this.state;
    if (memory.settle(eventId, committed) && memory.mark !== undefined)
      this.state.update({ history_id: memory.mark });
  }

  private async expandOrThrow(event: SourceEvent): Promise<MailExpansion> {
    const { state } = this;
    const creds = this.access.credentials();
    if (!creds) return { result: { ok: false, reason: "mail_api_not_configured" } };
    await state.load();
    if (state.memory.isRecent(event.event_id)) return { result: { ok: true, drafts: [] } };
    const notified = historyIdOf(event.payload);
    const from = state.memory.mark ?? state.watch?.historyId;
    if (from === undefined) {
      if (notified === undefined)
        return { result: { ok: false, reason: "invalid_payload", detail: "historyId" } };
      state.memory.remember(event.event_id);
      this.advance(notified, event.event_id);
      return this.reply({ ok: true, drafts: [] });
    }
    let history: { history: HistoryRecord[]; historyId: string };
    let messages: Map<string, MessageMeta>;
    try {
      const api = this.access.api(creds);
      history = await api.listHistory(creds.email, from);
      messages = await fetchMessages(api, creds.email, history.history);
    } catch (error) {
      return this.apiFailure(error, from, notified, event.event_id);
    }
    const { drafts, rejected } = mapMailHistory({
      history: history.history,
      messages,
      seenThreads: state.memory.seenThreads,
      email: creds.email,
      eventId: event.event_id,
    });
    state.memory.remember(event.event_id);
    state.memory.rememberThreads(history.history, messages);
    this.advance(maxHistoryId(from, history.historyId), event.event_id);
    state.update({ last_expanded_at: isoOf(this.deps.clock.now()) });
    if (this.deps.converse && drafts.length > 0) this.awaitCommit(event, drafts);
    // Messages lacking what their entry needs are dead-lettered by the tenant, each on its own.
    return this.reply(rejected.length > 0 ? { ok: true, drafts, rejected } : { ok: true, drafts });
  }

  private awaitCommit(event: SourceEvent, drafts: IngestDraft[]): void {
    this.unsettled.set(event.event_id, { event, drafts });
    for (const key of this.unsettled.keys()) {
      if (this.unsettled.size <= MAX_UNSETTLED) break;
      this.unsettled.delete(key);
    }
  }

  private advance(mark: string, eventId: string): void {
    this.state.memory.advance(mark, eventId);
    this.state.update({ history_id: mark });
  }

  /** The result with the state the tenant commits alongside, in order. */
  private reply(result: MapResult): MailExpansion {
    const state = this.state.toCommit();
    return { result, state, stateSeq: this.state.memory.nextSnapshotSeq(this.deps.clock.now()) };
  }

  private async apiFailure(
    error: unknown,
    from: string,
    notified: string | undefined,
    eventId: string,
  ): Promise<MailExpansion> {
    const now = this.deps.clock.now();
    if (error instanceof MailApiError && error.status === 404 && /history/.test(error.message) && notified)
      return this.historyExpired(from, notified, now);
    const detail = describeError(error);
    if (this.deps.replay && isPassing(error)) this.catchUp.add(eventId, error.retryAfterMs);
    this.state.update({ last_error: `expansion failed: ${detail}`, last_error_at: isoOf(now) });
    await this.state.saveStatus();
    if (error instanceof MailApiError) return { result: { ok: false, reason: "mail_api_error", detail } };
    return { result: { ok: false, reason: "mail_expand_failed", detail } };
  }

  /** The mark is older than the history the API keeps: resume from the notification and say so. */
  private async historyExpired(from: string, notified: string, now: number): Promise<MailExpansion> {
    const { state } = this;
    state.memory.mark = maxHistoryId(from, notified);
    await state.put(MAIL_STATE.history, state.memory.mark);
    state.update({
      history_id: state.memory.mark,
      last_error: `history after ${from} expired`,
      last_error_at: isoOf(now),
    });
    await state.saveStatus();
    return {
      result: {
        ok: false,
        reason: "mail_history_expired",
        detail: `history after ${from} is gone; resumed from ${state.memory.mark}`,
      },
    };
  }
}

/** Each added message's metadata (drafts left out), a few requests at a time. */
async function fetchMessages(
  api: MailApiClient,
  email: string,
  history: HistoryRecord[],
): Promise<Map<string, MessageMeta>> {
  const ids = new Set<string>();
  for (const record of history) {
    for (const item of record?.messagesAdded ?? []) {
      const ref = item?.message;
      if (typeof ref?.id === "string" && !ref.labelIds?.includes("DRAFT")) ids.add(ref.id);
    }
    for (const item of record?.labelsAdded ?? [])
      if (typeof item?.message?.id === "string") ids.add(item.message.id);
  }
  const messages = new Map<string, MessageMeta>();
  const queue = [...ids];
  const worker = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      const meta = await api.getMessage(email, id);
      if (meta) messages.set(id, meta);
    }
  };
  await Promise.all(Array.from({ length: Math.min(MESSAGE_FETCH_CONCURRENCY, queue.length) }, worker));
  return messages;
}

function historyIdOf(payload: unknown): string | undefined {
  const id = (payload as { historyId?: unknown } | undefined)?.historyId;
  return typeof id === "string" || typeof id === "number" ? String(id) : undefined;
}

/** History ids are decimal and only grow; a non-decimal id (never seen) is taken as given. */
export function maxHistoryId(a: string, b: string): string {
  if (!/^\d+$/.test(a) || !/^\d+$/.test(b)) return b;
  return BigInt(a) >= BigInt(b) ? a : b;
}
