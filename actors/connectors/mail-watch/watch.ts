/**
 * The mailbox watch: `mail.start` calls watch when no unexpired watch is stored, then renews it
 * daily and always an hour before its 7-day expiry (watch-schedule.ts). A failed call is retried
 * with backoff and jitter, or after the API's `Retry-After` when it named one. The renewal timer
 * goes through the injected clock and sends `mail.renew` to the actor.
 */
import type { Backoff } from "../../../src/connectors/backoff.ts";
import { errorMessage } from "../../../src/connectors/transport.ts";
import { isoOf } from "../../../src/models/common.ts";
import type { MailStatus, MailWatchProtocol } from "../../../src/protocols/connector-protocol.ts";
import type { Clock, TimerHandle } from "../../../src/runtime/clock.ts";
import type { MessageOf } from "../../../src/runtime/protocol.ts";
import { MailApiError } from "../../../src/sources/mail/api.ts";
import { type Credentials, describeError, type MailAccess } from "./mail-access.ts";
import { MAIL_STATE, type MailWatchState } from "./state.ts";
import { nextRenewalAt, type StoredWatch, watchIsLive } from "./watch-schedule.ts";

export interface WatchDeps {
  clock: Clock;
  tellSelf: (msg: MessageOf<MailWatchProtocol>) => void;
}

export class WatchRenewal {
  private started = false;
  private timer: TimerHandle | undefined;

  constructor(
    private readonly state: MailWatchState,
    private readonly access: MailAccess,
    private readonly backoff: Backoff,
    private readonly deps: WatchDeps,
  ) {}

  halt(): void {
    this.started = false;
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** Keeps a live stored watch (its renewal still scheduled), else calls watch now. */
  async start(): Promise<MailStatus> {
    const { state } = this;
    try {
      await state.load();
    } catch (error) {
      state.log(`cannot read connector state: ${errorMessage(error)}`);
      return state.snapshot();
    }
    const settings = await this.settings();
    if (!settings) return state.snapshot();
    const { creds, topic } = settings;
    this.started = true;
    state.update({ email: creds.email, topic });
    if (watchIsLive(state.watch, this.deps.clock.now())) {
      state.update({ state: "active", ...this.fields(state.watch) });
      this.schedule(nextRenewalAt(state.watch));
      await state.saveStatus();
    } else {
      await this.renew();
    }
    return state.snapshot();
  }

  async renewFromTimer(): Promise<void> {
    this.timer = undefined;
    if (!this.started || this.state.stopping) return;
    await this.renew();
  }

  /** The credentials and topic a watch needs, or undefined after recording `not_configured`. */
  private async settings(): Promise<{ creds: Credentials; topic: string } | undefined> {
    const topic = this.access.topic();
    const creds = this.access.credentials();
    if (creds && topic) return { creds, topic };
    this.state.update({ state: "not_configured", last_error: "mail API credentials or topic missing" });
    await this.state.saveStatus();
    return undefined;
  }

  private async renew(): Promise<void> {
    const settings = await this.settings();
    if (!settings) return;
    const now = this.deps.clock.now();
    try {
      await this.watch(settings.creds, settings.topic, now);
    } catch (error) {
      if (this.state.stopping) return;
      this.retryLater(error, now);
    }
    await this.state.saveStatus();
  }

  private async watch(creds: Credentials, topic: string, now: number): Promise<void> {
    const { state } = this;
    const result = await this.access.api(creds).watch(creds.email, topic);
    if (state.stopping) return;
    state.watch = { historyId: result.historyId, expiration: result.expiration, renewedAt: now };
    await state.put(MAIL_STATE.watch, state.watch);
    // History before the watch is not this connector's business; from here on it is.
    if (state.memory.mark === undefined) {
      state.memory.mark = result.historyId;
      await state.put(MAIL_STATE.history, state.memory.mark);
    }
    this.backoff.reset();
    state.update({
      state: "active",
      email: creds.email,
      topic,
      history_id: state.memory.mark,
      ...this.fields(state.watch),
      last_error: null,
    });
    this.schedule(nextRenewalAt(state.watch));
  }

  private retryLater(error: unknown, now: number): void {
    const backoffMs = this.backoff.next();
    const delay = (error instanceof MailApiError ? error.retryAfterMs : undefined) ?? backoffMs;
    // A live watch keeps working while the renewal is retried; only a dead one is "retrying".
    const live = watchIsLive(this.state.watch, now);
    this.state.update({
      state: live ? "active" : "retrying",
      last_error: `watch failed: ${describeError(error)}`,
      last_error_at: isoOf(now),
      next_renewal_at: isoOf(now + delay),
    });
    this.schedule(now + delay);
  }

  private fields(watch: StoredWatch) {
    return {
      expiration: isoOf(watch.expiration),
      last_renewed_at: isoOf(watch.renewedAt),
      next_renewal_at: isoOf(Math.max(this.deps.clock.now(), nextRenewalAt(watch))),
    };
  }

  private schedule(at: number): void {
    this.timer?.cancel();
    if (this.state.stopping) return;
    const delay = Math.max(0, at - this.deps.clock.now());
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = undefined;
      if (!this.state.stopping) this.deps.tellSelf({ type: "mail.renew" });
    }, delay);
  }
}
