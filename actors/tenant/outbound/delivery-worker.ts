/**
 * The delivery worker of one tenant's outbound events (`outbound:<tenant>`).
 *
 * The change log is the outbox: an event exists if and only if its change committed, and each
 * subscription's `position` (durable, in the tenant's vault) says how far it was delivered. Each
 * active subscription is a lane: it reads the log after its position, keeps the changes of the
 * types it subscribed to, and POSTs them one at a time, in order. A lane moves on only after a 2xx
 * (head-of-line: change N+1 is never sent before N was accepted), and only then is its position
 * stored. A crash between the answer and that write sends the change again, with the same
 * `webhook-id`: at-least-once, receivers dedupe.
 *
 * Requests run outside the mailbox and report back as `outbound.result`; a failure schedules
 * `outbound.retry` after an exponential backoff with jitter on the injected clock. A run of
 * `maxFailures` consecutive failures disables the subscription (delivery log, admin audit) until
 * an operator enables it again. New commits reach the worker through the tenant's change feed, so
 * nothing polls. Neither secrets nor bodies are ever logged.
 */
import { backoffDelay } from "../../../src/connectors/backoff.ts";
import type { ChangeFeeds } from "../../../src/memory/change-feed.ts";
import type { AdminEvent } from "../../../src/models/admin-event.ts";
import type { Change } from "../../../src/models/change.ts";
import { isoOf } from "../../../src/models/common.ts";
import type { Delivery, StoredSubscription, SubscriptionPatch } from "../../../src/models/subscription.ts";
import { signingKey, webhookHeaders, webhookIdOf } from "../../../src/outbound/signing.ts";
import type { AttemptResult, OutboundProtocol } from "../../../src/protocols/outbound-protocol.ts";
import type { TenantProtocol } from "../../../src/protocols/tenant-protocol.ts";
import type { ActorRef } from "../../../src/runtime/actor-system.ts";
import type { Clock, TimerHandle } from "../../../src/runtime/clock.ts";
import type { Behaviour, MessageOf } from "../../../src/runtime/protocol.ts";
import type { Sample, Telemetry } from "../../../src/telemetry/telemetry.ts";

/** Changes read from the log per ask. */
const BATCH = 100;
/** A lane that skipped this many changes of other types stores its position even with nothing sent. */
const SKIP_PERSIST = 500;
/** Delay of the first retry after an internal error (the tenant could not be read), before jitter. */
const INTERNAL_RETRY_MS = 1_000;

export interface OutboundDeps {
  clock: Clock;
  tenant: ActorRef<TenantProtocol>;
  feeds: ChangeFeeds;
  tellSelf: (msg: MessageOf<OutboundProtocol>) => void;
  /** Whether the tenant exists and is active now (a suspended tenant's events wait). */
  tenantActive: () => boolean;
  audit: (event: Omit<AdminEvent, "at">) => Promise<void>;
  maxFailures: number;
  timeoutMs: number;
  backoff: { baseMs: number; maxMs: number };
  /** The runtime stopping: requests end and nothing new starts. */
  signal?: AbortSignal;
  fetch?: typeof fetch;
  random?: () => number;
  /** Monotonic milliseconds for measuring durations (default performance.now). */
  monotonic?: () => number;
  log?: (line: string) => void;
  /** Times each delivery in a span whose `traceparent` the request carries; reads the backlog at scrapes. */
  telemetry?: Telemetry;
}

/** One subscription's delivery state in this worker. */
interface Lane {
  /** Identity of this lane: results and timers of a lane that was replaced are ignored. */
  readonly n: number;
  sub: StoredSubscription;
  readonly key: Buffer;
  readonly events: ReadonlySet<string>;
  /** The highest change position read from the log. */
  scanned: number;
  /** Position stored in the vault (as far as this worker knows). */
  stored: number;
  /** Matching changes read and not yet delivered, oldest first. */
  queue: Change[];
  /** A request or a read is under way. */
  busy: boolean;
  timer?: TimerHandle;
  internalErrors: number;
}

/** What one attempt came to: the receiver's status (null: no answer) and why it failed. */
type Posted = { status: number | null; error?: string };

export function outboundBehaviour(tenantId: string, deps: OutboundDeps): Behaviour<OutboundProtocol> {
  return new OutboundWorker(tenantId, deps).behaviour();
}

class OutboundWorker {
  private readonly lanes = new Map<string, Lane>();
  private laneCount = 0;
  private halted = false;
  private wakeQueued = false;
  private unsubscribe: (() => void) | undefined;
  private readonly requests = new AbortController();
  private readonly fetchImpl: typeof fetch;
  private readonly monotonic: () => number;
  private readonly unsample: (() => void) | undefined;

  constructor(
    private readonly tenantId: string,
    private readonly deps: OutboundDeps,
  ) {
    this.fetchImpl = deps.fetch ?? fetch;
    this.monotonic = deps.monotonic ?? (() => performance.now());
    deps.signal?.addEventListener("abort", () => this.halt(), { once: true });
    this.unsample = deps.telemetry?.sample(`outbound:${tenantId}`, () => this.samples());
  }

  /** The metrics' backlog: events read and not yet delivered, and the lanes waiting for a retry. */
  private samples(): Sample[] {
    let queued = 0;
    let retrying = 0;
    for (const lane of this.lanes.values()) {
      queued += lane.queue.length;
      if (lane.timer) retrying++;
    }
    return [
      { metric: "outboundQueued", value: queued },
      { metric: "outboundRetrying", value: retrying },
    ];
  }

  behaviour(): Behaviour<OutboundProtocol> {
    return {
      handlers: {
        "outbound.refresh": () => this.refresh(),
        "outbound.wake": async () => {
          this.wakeQueued = false;
          await this.pumpAll();
        },
        "outbound.retry": async ({ id, lane }) => {
          const l = this.lane(id, lane);
          if (!l) return;
          l.timer = undefined;
          await this.pump(l);
        },
        "outbound.result": async ({ id, lane, attempt }) => {
          await this.result(id, lane, attempt);
        },
      },
      stop: () => this.halt(),
    };
  }

  private get stopped(): boolean {
    return this.halted || (this.deps.signal?.aborted ?? false);
  }

  private halt(): void {
    this.halted = true;
    this.unsample?.();
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    for (const lane of this.lanes.values()) lane.timer?.cancel();
    this.lanes.clear();
    this.requests.abort();
  }

  private lane(id: string, n: number): Lane | undefined {
    const lane = this.lanes.get(id);
    return lane && lane.n === n && !this.stopped ? lane : undefined;
  }

  // ── subscriptions ─────────────────────────────────────────────────────────────────────────

  private async refresh(): Promise<{ active: number }> {
    if (this.stopped) return { active: 0 };
    const active = await this.deps.tenant.ask({ type: "outbound.active" });
    const ids = new Set(active.map((s) => s.id));
    for (const [id, lane] of this.lanes) {
      if (ids.has(id)) continue;
      lane.timer?.cancel();
      this.lanes.delete(id);
    }
    for (const sub of active) if (!this.lanes.has(sub.id)) this.lanes.set(sub.id, this.newLane(sub));
    this.unsubscribe ??= this.deps.feeds.subscribe(this.tenantId, () => this.wake());
    await this.pumpAll();
    return { active: this.lanes.size };
  }

  private newLane(sub: StoredSubscription): Lane {
    return {
      n: ++this.laneCount,
      sub,
      key: signingKey(sub.secret),
      events: new Set(sub.events),
      scanned: sub.position,
      stored: sub.position,
      queue: [],
      busy: false,
      internalErrors: 0,
    };
  }

  /** Coalesced: one wake waits in the mailbox at most, however many commits called it. */
  private wake(): void {
    if (this.wakeQueued || this.stopped) return;
    this.wakeQueued = true;
    this.deps.tellSelf({ type: "outbound.wake" });
  }

  private async pumpAll(): Promise<void> {
    for (const lane of [...this.lanes.values()]) await this.pump(lane);
  }

  // ── delivery ──────────────────────────────────────────────────────────────────────────────

  /** Sends the lane's next change, unless it is sending, waiting for a retry, or has none. */
  private async pump(lane: Lane): Promise<void> {
    if (this.stopped || lane.busy || lane.timer || this.lanes.get(lane.sub.id) !== lane) return;
    if (!this.deps.tenantActive()) return;
    lane.busy = true;
    try {
      const change = await this.head(lane);
      if (!change || this.lanes.get(lane.sub.id) !== lane) {
        lane.busy = false;
        return;
      }
      // Built for every attempt: a retry sends the entry as it is then (an erasure meanwhile wins).
      const body = await this.bodyOf(change);
      lane.internalErrors = 0;
      this.send(lane, change, body);
    } catch (error) {
      // The tenant could not be read (no file descriptor, stopping): not the receiver's fault.
      lane.busy = false;
      if (this.stopped) return;
      this.deps.log?.(
        `[outbound ${this.tenantId}] ${lane.sub.id}: cannot read the change log: ${text(error)}`,
      );
      this.arm(lane, backoffDelay(lane.internalErrors++, this.backoffOptions(INTERNAL_RETRY_MS)));
    }
  }

  /** The oldest matching change after the lane's position, reading the log in batches. */
  private async head(lane: Lane): Promise<Change | undefined> {
    for (;;) {
      if (lane.queue.length > 0) return lane.queue[0];
      const { changes } = await this.deps.tenant.ask({
        type: "changes.since",
        after: lane.scanned,
        limit: BATCH,
      });
      if (changes.length === 0) return undefined;
      lane.scanned = changes[changes.length - 1]!.seq;
      lane.queue = changes.filter((c) => lane.events.has(c.type));
      if (lane.queue.length === 0 && lane.scanned - lane.stored >= SKIP_PERSIST)
        await this.record(lane, { position: lane.scanned }, []);
    }
  }

  private async bodyOf(change: Change): Promise<string> {
    const data = await this.deps.tenant.ask({ type: "outbound.payload", change });
    return JSON.stringify({ type: change.type, timestamp: change.at, data });
  }

  /** One attempt, outside the mailbox; its outcome comes back as a message. */
  private send(lane: Lane, change: Change, body: string): void {
    const webhookId = webhookIdOf(this.tenantId, change.seq);
    const at = this.deps.clock.now();
    const headers = webhookHeaders(lane.key, webhookId, at, body);
    const started = this.monotonic();
    const report = (status: number | null, error?: string) =>
      this.deps.tellSelf({
        type: "outbound.result",
        id: lane.sub.id,
        lane: lane.n,
        attempt: {
          seq: change.seq,
          type: change.type,
          webhookId,
          at,
          status,
          error,
          durationMs: Math.max(0, Math.round((this.monotonic() - started) * 100) / 100),
        },
      });
    void this.traced(headers, () => this.post(lane.sub.url, headers, body)).then(({ status, error }) => {
      if (!this.stopped) report(status, error);
    });
  }

  /** The attempt timed, in an `outbound.delivery` span whose `traceparent` goes in `headers`. */
  private traced(headers: Record<string, string>, attempt: () => Promise<Posted>): Promise<Posted> {
    const telemetry = this.deps.telemetry;
    if (!telemetry) return attempt();
    return telemetry.time("outbound.delivery", [], async (timing) => {
      timing.inject(headers);
      const posted = await attempt();
      if (posted.error !== undefined) timing.fail(posted.error);
      return posted;
    });
  }

  /** POSTs one event; never throws. Redirects are not followed: a 3xx is a failure. */
  private async post(url: string, headers: Record<string, string>, body: string): Promise<Posted> {
    const timeout = new AbortController();
    const timer = this.deps.clock.setTimeout(() => timeout.abort(), this.deps.timeoutMs);
    try {
      const res = await this.fetchImpl(url, {
        method: "POST",
        headers,
        body,
        redirect: "manual",
        signal: AbortSignal.any([timeout.signal, this.requests.signal]),
      });
      // The answer's body is not needed: release the connection.
      await res.body?.cancel().catch(() => undefined);
      if (res.status >= 200 && res.status < 300) return { status: res.status };
      return { status: res.status, error: `HTTP ${res.status}` };
    } catch (error) {
      if (timeout.signal.aborted) return { status: null, error: `timed out after ${this.deps.timeoutMs} ms` };
      return { status: null, error: requestError(error) };
    } finally {
      timer.cancel();
    }
  }

  private async result(id: string, n: number, attempt: AttemptResult): Promise<void> {
    const lane = this.lane(id, n);
    if (!lane) return;
    lane.busy = false;
    const delivery: Delivery = {
      at: isoOf(attempt.at),
      webhook_id: attempt.webhookId,
      change_seq: attempt.seq,
      type: attempt.type,
      attempt: lane.sub.consecutive_failures + 1,
      status: attempt.status,
      outcome: attempt.error === undefined ? "delivered" : "failed",
      ...(attempt.error === undefined ? {} : { error: attempt.error }),
      duration_ms: attempt.durationMs,
    };
    if (attempt.error === undefined) {
      lane.queue.shift();
      const patch: SubscriptionPatch = {
        position: attempt.seq,
        consecutive_failures: 0,
        last_delivery_at: delivery.at,
        last_error: null,
      };
      lane.sub = { ...lane.sub, ...patch };
      await this.record(lane, patch, [delivery]);
      await this.pump(lane);
      return;
    }
    const failures = lane.sub.consecutive_failures + 1;
    if (failures >= this.deps.maxFailures) {
      await this.disable(lane, delivery, failures);
      return;
    }
    // Armed before the write is recorded: whoever sees the failure logged sees its retry scheduled.
    this.arm(lane, backoffDelay(failures - 1, this.backoffOptions(this.deps.backoff.baseMs)));
    const patch: SubscriptionPatch = { consecutive_failures: failures, last_error: attempt.error };
    lane.sub = { ...lane.sub, ...patch };
    await this.record(lane, patch, [delivery]);
  }

  private async disable(lane: Lane, failed: Delivery, failures: number): Promise<void> {
    this.lanes.delete(lane.sub.id);
    lane.timer?.cancel();
    const at = isoOf(this.deps.clock.now());
    const reason = `disabled after ${failures} consecutive failures`;
    const disabled: Delivery = {
      at,
      webhook_id: failed.webhook_id,
      change_seq: failed.change_seq,
      type: failed.type,
      attempt: failed.attempt,
      status: null,
      outcome: "disabled",
      error: reason,
      duration_ms: 0,
    };
    const patch: SubscriptionPatch = {
      status: "disabled",
      disabled_at: at,
      consecutive_failures: failures,
      last_error: failed.error ?? null,
    };
    // Audited first: whoever sees the subscription disabled finds the disabling in the audit log.
    this.deps.log?.(`[outbound ${this.tenantId}] subscription ${lane.sub.id} ${reason}`);
    try {
      await this.deps.audit({
        action: "subscription.disabled",
        sub: "outbound",
        tenant_id: this.tenantId,
        target: lane.sub.id,
        details: { consecutive_failures: failures, change_seq: failed.change_seq, last_error: failed.error },
      });
    } catch (error) {
      this.deps.log?.(`[outbound ${this.tenantId}] cannot audit the disabling: ${text(error)}`);
    }
    await this.record(lane, patch, [failed, disabled]);
  }

  /** Stores a lane's progress; a lane whose subscription was deleted meanwhile is dropped. */
  private async record(lane: Lane, patch: SubscriptionPatch, deliveries: Delivery[]): Promise<boolean> {
    try {
      const { found } = await this.deps.tenant.ask({
        type: "outbound.record",
        id: lane.sub.id,
        patch,
        deliveries,
      });
      if (patch.position !== undefined) lane.stored = Math.max(lane.stored, patch.position);
      if (!found && this.lanes.get(lane.sub.id) === lane) {
        lane.timer?.cancel();
        this.lanes.delete(lane.sub.id);
      }
      return found;
    } catch (error) {
      // Not stored: the worst case is one more delivery of this change after a restart.
      if (!this.stopped)
        this.deps.log?.(`[outbound ${this.tenantId}] ${lane.sub.id}: cannot store progress: ${text(error)}`);
      return true;
    }
  }

  private arm(lane: Lane, delayMs: number): void {
    lane.timer?.cancel();
    const n = lane.n;
    const id = lane.sub.id;
    lane.timer = this.deps.clock.setTimeout(() => {
      if (!this.stopped) this.deps.tellSelf({ type: "outbound.retry", id, lane: n });
    }, delayMs);
  }

  private backoffOptions(baseMs: number) {
    return { baseMs, maxMs: Math.max(baseMs, this.deps.backoff.maxMs), random: this.deps.random };
  }
}

/** A log-safe description of a failed request: its error code or name, never a URL or message text. */
function requestError(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === "string" && /^[A-Za-z0-9_]{1,40}$/.test(code)) return `request failed (${code})`;
  const name = error instanceof Error ? error.name : "error";
  return `request failed (${/^[A-Za-z]{1,40}$/.test(name) ? name : "error"})`;
}

function text(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
