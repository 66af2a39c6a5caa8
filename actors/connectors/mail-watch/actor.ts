// One folder per connector actor: the mail watch and what only it uses (watch schedule, catch-up queue); shared plumbing is in src/connectors/.
/**
 * The mail connector of one tenant (SOURCES.md, `mail` Expansion and Watch).
 *
 * Expansion: a push notification only says "the mailbox moved to history N". This actor pages the
 * mail API from the stored high-water mark (never from the notification's id), reads each new
 * message's metadata and maps the history to drafts. The new mark travels back in the reply's
 * `state`, so the tenant commits it in the same transaction as the entries; the actor also keeps
 * it in memory, and since it handles one notification at a time, two notifications in a row never
 * expand the same range twice.
 *   - No stored mark: the history id of the watch (recorded when the watch started) is used; with
 *     no watch either, the notification's own id becomes the mark and nothing is written (history
 *     before it cannot be told apart from history already seen).
 *   - A notification already expanded (a redelivery) consumes nothing: the tenant counts it as a
 *     duplicate, and the history since the mark is left for the next notification.
 *   - A mark older than the API keeps (404) is replaced by the notification's id and the gap is
 *     dead-lettered as `mail_history_expired`.
 *   - Without credentials: `mail_api_not_configured`; API failures: `mail_api_error: <status> (...)`.
 *     Both are dead letters that a replay expands again once the cause is gone. A passing failure
 *     (429, 5xx, no answer) is replayed by the connector itself, after the API's `Retry-After` or
 *     its backoff (catch-up.ts); health shows `pending_retries` until it went through.
 *
 * Watch: `mail.start` calls watch when no unexpired watch is stored, then renews it daily and
 * always an hour before its 7-day expiry; failed calls are retried with backoff and jitter, or after
 * the API's `Retry-After` when it named one. Every timer goes through the injected clock. The status
 * is stored as `status:mail`.
 */
import { Backoff } from "../../../src/connectors/backoff.ts";
import { boundedFetch, errorMessage } from "../../../src/connectors/transport.ts";
import { isoOf } from "../../../src/models/common.ts";
import type {
  MailExpansion,
  MailStatus,
  MailWatchProtocol,
} from "../../../src/protocols/connector-protocol.ts";
import type { TenantProtocol } from "../../../src/protocols/tenant-protocol.ts";
import type { ActorRef } from "../../../src/runtime/actor-system.ts";
import type { Clock, TimerHandle } from "../../../src/runtime/clock.ts";
import type { Behaviour, MessageOf } from "../../../src/runtime/protocol.ts";
import type { Secrets } from "../../../src/secrets.ts";
import {
  type HistoryRecord,
  MailApiClient,
  MailApiError,
  type MessageMeta,
} from "../../../src/sources/mail/api.ts";
import { mapMailHistory } from "../../../src/sources/mail/history.ts";
import type { MapResult, SourceEvent } from "../../../src/sources/types.ts";
import { CatchUpQueue } from "./catch-up.ts";
import { nextRenewalAt, type StoredWatch, storedWatchOf, watchIsLive } from "./watch-schedule.ts";

export const MAIL_STATE = {
  history: "mail:history",
  threads: "mail:threads",
  recent: "mail:recent",
  watch: "mail:watch",
  status: "status:mail",
} as const;

/** Threads remembered to tell a reply from a new conversation; the oldest are forgotten first. */
export const MAX_SEEN_THREADS = 2000;
/** Notification ids remembered to recognise a redelivery. */
export const MAX_RECENT_NOTIFICATIONS = 200;
const MESSAGE_FETCH_CONCURRENCY = 8;
const REQUEST_TIMEOUT_MS = 30_000;

export interface MailWatchDeps {
  clock: Clock;
  secrets: Secrets;
  /** Process-wide MAIL_OAUTH_TOKEN_URL and MAIL_API_BASE_URL. */
  tokenUrl: string;
  apiBaseUrl: string;
  tenant: ActorRef<TenantProtocol>;
  tellSelf: (msg: MessageOf<MailWatchProtocol>) => void;
  /** Aborted when the runtime stops: in-flight calls end and no timer fires afterwards. */
  signal?: AbortSignal;
  random?: () => number;
  fetch?: typeof fetch;
  retry?: { baseMs: number; maxMs: number };
  /**
   * Replays this tenant's dead letter of a mail notification through the ingest pipeline (which
   * expands it through this actor again). Without it, failed expansions wait for an operator.
   */
  replay?: (eventId: string) => Promise<{ status: "replayed" | "dead" }>;
  log?: (line: string) => void;
}

interface Credentials {
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  email: string;
}

export function mailWatchBehaviour(tenantId: string, deps: MailWatchDeps): Behaviour<MailWatchProtocol> {
  return new MailWatch(tenantId, deps).behaviour();
}

class MailWatch {
  private loaded = false;
  private started = false;
  /** The authoritative high-water mark: ahead of the stored one while its commit is in flight. */
  private mark: string | undefined;
  private threads: string[] = [];
  private threadSet = new Set<string>();
  private recent: string[] = [];
  private watch: StoredWatch | undefined;
  /** Until `mail.start` (or a stored status), the connector only expands notifications. */
  private status: MailStatus = { state: "push_only", last_error: null };
  private timer: TimerHandle | undefined;
  private readonly backoff: Backoff;
  /** Notifications whose expansion failed for a passing reason, replayed on the clock. */
  private readonly catchUp: CatchUpQueue;
  private client: { key: string; api: MailApiClient } | undefined;
  /**
   * What each expansion whose commit is not yet settled moved from, oldest first: the mark moves in
   * memory before the tenant commits it, and a refused commit must not leave it moved.
   */
  private unsettled: Array<{ eventId: string; before: ExpansionState }> = [];

  constructor(
    private readonly tenantId: string,
    private readonly deps: MailWatchDeps,
  ) {
    const retry = { baseMs: 1_000, maxMs: 10 * 60_000, ...deps.retry, random: deps.random };
    this.backoff = new Backoff(retry);
    this.catchUp = new CatchUpQueue(deps.clock, new Backoff(retry), () => {
      if (!this.stopping) deps.tellSelf({ type: "mail.catchup" });
    });
    deps.signal?.addEventListener("abort", () => this.halt(), { once: true });
  }

  behaviour(): Behaviour<MailWatchProtocol> {
    return {
      handlers: {
        "mail.start": () => this.start(),
        "mail.renew": () => this.renewFromTimer(),
        "mail.expand": ({ event }) => this.expand(event),
        "mail.settled": ({ eventId, committed }) => this.settled(eventId, committed),
        // Not awaited: each replay expands through this actor's own mailbox.
        "mail.catchup": () => void this.replayWaiting(),
        "mail.status": () => this.snapshot(),
        "mail.stop": async () => {
          this.halt();
          this.status = { ...this.status, state: "stopped", next_renewal_at: undefined };
          await this.saveStatus();
        },
      },
      stop: () => this.halt(),
    };
  }

  private halt(): void {
    this.started = false;
    this.timer?.cancel();
    this.timer = undefined;
    this.catchUp.cancel();
  }

  /** The status with the catch-up figures, which live in the queue. */
  private snapshot(): MailStatus {
    const next = this.catchUp.nextAt;
    return {
      ...this.status,
      pending_retries: this.catchUp.size,
      next_retry_at: next === undefined ? undefined : isoOf(next),
    };
  }

  private get stopping(): boolean {
    return this.deps.signal?.aborted ?? false;
  }

  // ── watch ────────────────────────────────────────────────────────────────────────────────

  private async start(): Promise<MailStatus> {
    try {
      await this.load();
    } catch (error) {
      this.deps.log?.(`[mail-watch ${this.tenantId}] cannot read connector state: ${errorMessage(error)}`);
      return this.snapshot();
    }
    const settings = await this.watchSettings();
    if (!settings) return this.snapshot();
    const { creds, topic } = settings;
    this.started = true;
    this.status = { ...this.status, email: creds.email, topic };
    if (watchIsLive(this.watch, this.deps.clock.now())) {
      this.status = { ...this.status, state: "active", ...this.watchFields(this.watch) };
      this.schedule(nextRenewalAt(this.watch));
      await this.saveStatus();
    } else {
      await this.renew();
    }
    return this.snapshot();
  }

  private async renewFromTimer(): Promise<void> {
    this.timer = undefined;
    if (!this.started || this.stopping) return;
    await this.renew();
  }

  /** The credentials and topic a watch needs, or undefined after recording `not_configured`. */
  private async watchSettings(): Promise<{ creds: Credentials; topic: string } | undefined> {
    const topic = this.deps.secrets.get("MAIL_PUBSUB_TOPIC", this.tenantId);
    const creds = this.credentials();
    if (creds && topic) return { creds, topic };
    this.status = {
      ...this.status,
      state: "not_configured",
      last_error: "mail API credentials or topic missing",
    };
    await this.saveStatus();
    return undefined;
  }

  private async renew(): Promise<void> {
    const settings = await this.watchSettings();
    if (!settings) return;
    const { creds, topic } = settings;
    const now = this.deps.clock.now();
    try {
      const result = await this.api(creds).watch(creds.email, topic);
      if (this.stopping) return;
      this.watch = { historyId: result.historyId, expiration: result.expiration, renewedAt: now };
      await this.put(MAIL_STATE.watch, this.watch);
      // History before the watch is not this connector's business; from here on it is.
      if (this.mark === undefined) {
        this.mark = result.historyId;
        await this.put(MAIL_STATE.history, this.mark);
      }
      this.backoff.reset();
      this.status = {
        ...this.status,
        state: "active",
        email: creds.email,
        topic,
        history_id: this.mark,
        ...this.watchFields(this.watch),
        last_error: null,
      };
      this.schedule(nextRenewalAt(this.watch));
    } catch (error) {
      if (this.stopping) return;
      const backoffMs = this.backoff.next();
      const delay = (error instanceof MailApiError ? error.retryAfterMs : undefined) ?? backoffMs;
      // A live watch keeps working while the renewal is retried; only a dead one is "retrying".
      const live = watchIsLive(this.watch, now);
      this.status = {
        ...this.status,
        state: live ? "active" : "retrying",
        last_error: `watch failed: ${describeError(error)}`,
        last_error_at: isoOf(now),
        next_renewal_at: isoOf(now + delay),
      };
      this.schedule(now + delay);
    }
    await this.saveStatus();
  }

  private watchFields(watch: StoredWatch) {
    return {
      expiration: isoOf(watch.expiration),
      last_renewed_at: isoOf(watch.renewedAt),
      next_renewal_at: isoOf(Math.max(this.deps.clock.now(), nextRenewalAt(watch))),
    };
  }

  private schedule(at: number): void {
    this.timer?.cancel();
    if (this.stopping) return;
    const delay = Math.max(0, at - this.deps.clock.now());
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = undefined;
      if (!this.stopping) this.deps.tellSelf({ type: "mail.renew" });
    }, delay);
  }

  // ── expansion ────────────────────────────────────────────────────────────────────────────

  /** Never throws: whatever goes wrong becomes a dead-letter reason, not a 500 of the webhook. */
  private async expand(event: SourceEvent): Promise<MailExpansion> {
    try {
      return await this.expandOrThrow(event);
    } catch (error) {
      return {
        result: { ok: false, reason: "mail_expand_failed", detail: errorMessage(error).slice(0, 300) },
      };
    }
  }

  private async expandOrThrow(event: SourceEvent): Promise<MailExpansion> {
    const creds = this.credentials();
    if (!creds) return { result: { ok: false, reason: "mail_api_not_configured" } };
    await this.load();
    if (this.recent.includes(event.event_id)) return { result: { ok: true, drafts: [] } };
    const notified = historyIdOf(event.payload);
    const from = this.mark ?? this.watch?.historyId;
    if (from === undefined) {
      if (notified === undefined)
        return { result: { ok: false, reason: "invalid_payload", detail: "historyId" } };
      this.remember(event.event_id);
      this.advance(notified, event.event_id);
      return {
        result: { ok: true, drafts: [] },
        state: this.stateToCommit(),
        stateSeq: this.nextSnapshotSeq(),
      };
    }
    let history: { history: HistoryRecord[]; historyId: string };
    let messages: Map<string, MessageMeta>;
    try {
      const api = this.api(creds);
      history = await api.listHistory(creds.email, from);
      messages = await this.fetchMessages(api, creds.email, history.history);
    } catch (error) {
      return this.apiFailure(error, from, notified, event.event_id);
    }
    const { drafts, rejected } = mapMailHistory({
      history: history.history,
      messages,
      seenThreads: this.threadSet,
      email: creds.email,
      eventId: event.event_id,
    });
    this.remember(event.event_id);
    this.rememberThreads(history.history, messages);
    this.advance(maxHistoryId(from, history.historyId), event.event_id);
    this.status = { ...this.status, last_expanded_at: isoOf(this.deps.clock.now()) };
    // Messages lacking what their entry needs are dead-lettered by the tenant, each on its own.
    const result: MapResult = rejected.length > 0 ? { ok: true, drafts, rejected } : { ok: true, drafts };
    return { result, state: this.stateToCommit(), stateSeq: this.nextSnapshotSeq() };
  }

  private async apiFailure(
    error: unknown,
    from: string,
    notified: string | undefined,
    eventId: string,
  ): Promise<MailExpansion> {
    const now = this.deps.clock.now();
    if (error instanceof MailApiError && error.status === 404 && /history/.test(error.message) && notified) {
      // The mark is older than the history the API keeps: resume from the notification and say so.
      this.mark = maxHistoryId(from, notified);
      await this.put(MAIL_STATE.history, this.mark);
      this.status = {
        ...this.status,
        history_id: this.mark,
        last_error: `history after ${from} expired`,
        last_error_at: isoOf(now),
      };
      await this.saveStatus();
      return {
        result: {
          ok: false,
          reason: "mail_history_expired",
          detail: `history after ${from} is gone; resumed from ${this.mark}`,
        },
      };
    }
    const detail = describeError(error);
    if (this.deps.replay && isPassing(error)) this.catchUp.add(eventId, error.retryAfterMs);
    this.status = { ...this.status, last_error: `expansion failed: ${detail}`, last_error_at: isoOf(now) };
    await this.saveStatus();
    if (error instanceof MailApiError) return { result: { ok: false, reason: "mail_api_error", detail } };
    return { result: { ok: false, reason: "mail_expand_failed", detail } };
  }

  private async fetchMessages(
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

  /**
   * Replays the waiting notifications oldest first, outside the mailbox. A replay that fails again
   * puts itself back (its expansion queued it, or it is put back here) and the rest wait with it.
   */
  private async replayWaiting(): Promise<void> {
    const replay = this.deps.replay;
    const ids = this.catchUp.take();
    for (let i = 0; i < ids.length; i++) {
      if (this.stopping || !replay) return;
      let status: "replayed" | "dead";
      try {
        ({ status } = await replay(ids[i]!));
      } catch (error) {
        // The dead letter may not be committed yet, or the tenant is stopping: try again later.
        this.deps.log?.(`[mail-watch ${this.tenantId}] catch-up replay failed: ${errorMessage(error)}`);
        status = "dead";
        this.catchUp.putBack([ids[i]!]);
      }
      if (status === "dead") {
        this.catchUp.putBack(ids.slice(i + 1));
        break;
      }
      this.catchUp.succeeded();
    }
    await this.saveStatus();
  }

  private rememberThreads(history: HistoryRecord[], messages: Map<string, MessageMeta>): void {
    for (const record of history) {
      for (const item of record?.messagesAdded ?? []) {
        const ref = item?.message;
        if (
          !ref ||
          typeof ref.threadId !== "string" ||
          !messages.has(ref.id) ||
          this.threadSet.has(ref.threadId)
        )
          continue;
        this.threadSet.add(ref.threadId);
        this.threads.push(ref.threadId);
      }
    }
    while (this.threads.length > MAX_SEEN_THREADS) this.threadSet.delete(this.threads.shift()!);
  }

  /** Keeps the state an expansion starts from until the tenant says whether it committed. */
  private remember(eventId: string): void {
    this.unsettled.push({
      eventId,
      before: { mark: this.mark, recent: [...this.recent], threads: [...this.threads] },
    });
    if (this.unsettled.length > MAX_UNSETTLED) this.unsettled.shift();
  }

  /**
   * A refused commit puts the state back to where that expansion started; expansions after it
   * started from its advance, so they are undone with it (their notifications expand again when
   * redelivered: a repeat, never a loss). A committed one is forgotten.
   */
  private settled(eventId: string, committed: boolean): void {
    const at = this.unsettled.findIndex((u) => u.eventId === eventId);
    if (at < 0) return;
    if (committed) {
      this.unsettled.splice(at, 1);
      return;
    }
    const { before } = this.unsettled[at]!;
    this.unsettled.length = at;
    this.mark = before.mark;
    this.recent = before.recent;
    this.threads = before.threads;
    this.threadSet = new Set(before.threads);
    if (this.mark !== undefined) this.status = { ...this.status, history_id: this.mark };
  }

  private advance(mark: string, eventId: string): void {
    this.mark = mark;
    this.recent.push(eventId);
    if (this.recent.length > MAX_RECENT_NOTIFICATIONS)
      this.recent.splice(0, this.recent.length - MAX_RECENT_NOTIFICATIONS);
    this.status = { ...this.status, history_id: mark };
  }

  /** Snapshots may commit out of order (two notifications in flight); the sequence orders them. */
  private snapshotSeq = 0;

  private nextSnapshotSeq(): number {
    this.snapshotSeq = Math.max(this.snapshotSeq + 1, this.deps.clock.now());
    return this.snapshotSeq;
  }

  private stateToCommit(): Array<[string, unknown]> {
    return [
      [MAIL_STATE.history, this.mark],
      [MAIL_STATE.threads, [...this.threads]],
      [MAIL_STATE.recent, [...this.recent]],
      [MAIL_STATE.status, this.snapshot()],
    ];
  }

  // ── plumbing ─────────────────────────────────────────────────────────────────────────────

  private credentials(): Credentials | undefined {
    const get = (base: string) => this.deps.secrets.get(base, this.tenantId);
    const clientId = get("MAIL_CLIENT_ID");
    const clientSecret = get("MAIL_CLIENT_SECRET");
    const refreshToken = get("MAIL_REFRESH_TOKEN");
    const email = get("MAIL_WATCH_EMAIL");
    if (!clientId || !clientSecret || !refreshToken || !email) return undefined;
    return { clientId, clientSecret, refreshToken, email: email.trim() };
  }

  /** One client per set of credentials: its access token is cached until the credentials change. */
  private api(creds: Credentials): MailApiClient {
    const key = `${creds.clientId}\u0000${creds.clientSecret}\u0000${creds.refreshToken}`;
    if (this.client?.key !== key) {
      const api = new MailApiClient({
        tokenUrl: this.deps.tokenUrl,
        apiBaseUrl: this.deps.apiBaseUrl,
        clientId: creds.clientId,
        clientSecret: creds.clientSecret,
        refreshToken: creds.refreshToken,
        clock: this.deps.clock,
        fetch: boundedFetch(this.deps.fetch ?? fetch, this.deps.signal, REQUEST_TIMEOUT_MS),
      });
      this.client = { key, api };
    }
    return this.client.api;
  }

  private async load(): Promise<void> {
    if (this.loaded) return;
    const get = (key: string) => this.deps.tenant.ask({ type: "connector.state.get", key });
    const [mark, threads, recent, watch, status] = await Promise.all([
      get(MAIL_STATE.history),
      get(MAIL_STATE.threads),
      get(MAIL_STATE.recent),
      get(MAIL_STATE.watch),
      get(MAIL_STATE.status),
    ]);
    this.mark ??= typeof mark === "string" ? mark : undefined;
    this.threads = stringList(threads).slice(-MAX_SEEN_THREADS);
    this.threadSet = new Set(this.threads);
    this.recent = stringList(recent).slice(-MAX_RECENT_NOTIFICATIONS);
    this.watch = storedWatchOf(watch);
    if (typeof status === "object" && status !== null) this.status = { ...(status as MailStatus) };
    this.loaded = true;
  }

  private async put(key: string, value: unknown): Promise<void> {
    if (this.stopping) return;
    await this.deps.tenant.ask({ type: "connector.state.put", key, value });
  }

  private async saveStatus(): Promise<void> {
    try {
      await this.put(MAIL_STATE.status, this.snapshot());
    } catch (error) {
      this.deps.log?.(`[mail-watch ${this.tenantId}] cannot store status: ${errorMessage(error)}`);
    }
  }
}

function describeError(error: unknown): string {
  if (error instanceof MailApiError) return `${error.status} (${error.message})`;
  return errorMessage(error).slice(0, 300);
}

/** A failure that passes by itself: the API was busy (429), failing (5xx) or unreachable. */
function isPassing(error: unknown): error is MailApiError {
  if (!(error instanceof MailApiError)) return false;
  return error.status === 0 || error.status === 408 || error.status === 429 || error.status >= 500;
}

/** The in-memory expansion state a refused commit restores. */
interface ExpansionState {
  mark: string | undefined;
  recent: string[];
  threads: string[];
}

/** Expansions awaiting their commit's outcome, at most (older ones are taken as settled). */
const MAX_UNSETTLED = 64;

function historyIdOf(payload: unknown): string | undefined {
  const id = (payload as { historyId?: unknown } | undefined)?.historyId;
  return typeof id === "string" || typeof id === "number" ? String(id) : undefined;
}

/** History ids are decimal and only grow; a non-decimal id (never seen) is taken as given. */
export function maxHistoryId(a: string, b: string): string {
  if (!/^\d+$/.test(a) || !/^\d+$/.test(b)) return b;
  return BigInt(a) >= BigInt(b) ? a : b;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
