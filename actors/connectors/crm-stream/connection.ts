/**
 * The CRM stream's connection: opening it (token, then transport, both outside the mailbox), and
 * what happens when it opens or ends. An ended connection is followed by `crm.connect` on the
 * injected clock, after the backoff or exactly the wait the server asked for; a 401 signs a new
 * assertion, at once the first time; a server's `reconnect: "none"` halts the connector.
 *
 * Every connection has a generation (`gen`): messages and timers of an older one are ignored.
 */
import { Backoff, type BackoffOptions } from "../../../src/connectors/backoff.ts";
import {
  errorMessage,
  type StreamClosed,
  type StreamEvent,
  type StreamHandle,
} from "../../../src/connectors/transport.ts";
import { isoOf } from "../../../src/models/common.ts";
import type { CrmStreamProtocol } from "../../../src/protocols/connector-protocol.ts";
import type { TimerHandle } from "../../../src/runtime/clock.ts";
import type { MessageOf } from "../../../src/runtime/protocol.ts";
import { CrmAuthError, type CrmJwtBearerClient } from "./crm-auth.ts";
import { openCrmTransport, type TransportDeps } from "./open-transport.ts";
import type { CrmSettings } from "./settings.ts";
import type { CrmStreamState } from "./state.ts";

/** A connection that stayed up this long counts as a success: the next failure starts the backoff over. */
const STABLE_MS = 60_000;

export interface ConnectionDeps extends TransportDeps {
  tellSelf: (msg: MessageOf<CrmStreamProtocol>) => void;
  random?: () => number;
  backoff?: Omit<BackoffOptions, "random">;
}

export class CrmConnection {
  private started = false;
  private settings: CrmSettings | undefined;
  auth: CrmJwtBearerClient | undefined;
  private gen = 0;
  private transport: StreamHandle | undefined;
  private timer: TimerHandle | undefined;
  private openedAt: number | undefined;
  /** Whether the immediate re-authentication after a 401 was used since the last good connection. */
  private reauthenticated = false;
  private readonly backoff: Backoff;

  constructor(
    private readonly state: CrmStreamState,
    private readonly deps: ConnectionDeps,
  ) {
    this.backoff = new Backoff({ baseMs: 1_000, maxMs: 5 * 60_000, ...deps.backoff, random: deps.random });
  }

  get running(): boolean {
    return this.started;
  }

  /** Whether `gen` is the live connection of a started connector. */
  isCurrent(gen: number): boolean {
    return gen === this.gen && this.started;
  }

  /** Whether `gen` is the newest connection, started or not (a warning may still be shown). */
  isLatest(gen: number): boolean {
    return gen === this.gen;
  }

  begin(settings: CrmSettings, auth: CrmJwtBearerClient): void {
    this.settings = settings;
    this.auth = auth;
    this.started = true;
  }

  halt(): void {
    this.started = false;
    this.drop();
  }

  /** Ends the live connection and its timer; its late messages are ignored (a new generation). */
  drop(): void {
    this.gen++;
    this.timer?.cancel();
    this.timer = undefined;
    this.transport?.close();
    this.transport = undefined;
  }

  /** After a committed event: the connection works, so the next failure backs off from the start. */
  succeeded(): void {
    this.backoff.reset();
  }

  /** Opens a new connection; authentication and the transport run outside the mailbox. */
  connect(again: boolean): void {
    if (!this.started || this.state.stopping || !this.settings || !this.auth) return;
    this.timer?.cancel();
    this.timer = undefined;
    this.transport?.close();
    this.transport = undefined;
    const gen = ++this.gen;
    this.state.update({
      state: "connecting",
      next_retry_at: undefined,
      reconnects: this.state.status.reconnects + (again ? 1 : 0),
    });
    void this.open(gen, this.settings, this.auth);
  }

  private async open(gen: number, settings: CrmSettings, auth: CrmJwtBearerClient): Promise<void> {
    const tell = (msg: MessageOf<CrmStreamProtocol>) => {
      if (gen === this.gen && !this.state.stopping) this.deps.tellSelf(msg);
    };
    try {
      const { accessToken } = await auth.token();
      if (gen !== this.gen || !this.started || this.state.stopping) return;
      this.transport = openCrmTransport(settings, accessToken, this.state.replay, this.deps, {
        onOpen: () => tell({ type: "crm.opened", gen }),
        onEvent: (event: StreamEvent) => tell({ type: "crm.event", gen, event }),
        onWarning: (message: string) => tell({ type: "crm.warning", gen, message }),
        onClosed: (closed: StreamClosed) => tell({ type: "crm.closed", gen, ...closed }),
      });
    } catch (error) {
      const refusal = error instanceof CrmAuthError ? error : undefined;
      tell({
        type: "crm.closed",
        gen,
        reason: `authentication failed: ${errorMessage(error)}`,
        status: refusal?.status,
        retryAfterMs: refusal?.retryAfterMs,
      });
    }
  }

  async opened(gen: number): Promise<void> {
    if (!this.isCurrent(gen)) return;
    this.openedAt = this.deps.clock.now();
    this.reauthenticated = false;
    this.state.update({ state: "connected", connected_at: this.state.nowIso(), next_retry_at: undefined });
    await this.state.save();
  }

  async closed(gen: number, closed: StreamClosed): Promise<void> {
    if (!this.isCurrent(gen)) return;
    this.transport?.close();
    this.transport = undefined;
    const now = this.deps.clock.now();
    if (this.openedAt !== undefined && now - this.openedAt >= STABLE_MS) this.backoff.reset();
    this.openedAt = undefined;
    this.state.update({ last_error: closed.reason, last_error_at: isoOf(now) });
    if (closed.final) {
      this.halt();
      this.state.update({ state: "halted", next_retry_at: undefined });
    } else if (!this.reauthenticateAfter(closed)) {
      this.scheduleReconnect(closed.retryAfterMs);
    }
    await this.state.save();
  }

  /** No refresh tokens: a 401 means a new assertion. Once at once; repeated 401s back off. */
  private reauthenticateAfter(closed: StreamClosed): boolean {
    if (closed.status !== 401) return false;
    this.auth?.invalidate();
    if (this.reauthenticated) return false;
    this.reauthenticated = true;
    this.connect(true);
    return true;
  }

  /** The server's wait when it named one, else the backoff's (whose attempt counter moves on either way). */
  scheduleReconnect(serverDelayMs?: number): void {
    if (!this.started || this.state.stopping) return;
    const backoffMs = this.backoff.next();
    const delay = serverDelayMs ?? backoffMs;
    const gen = this.gen;
    this.timer?.cancel();
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = undefined;
      if (!this.state.stopping) this.deps.tellSelf({ type: "crm.connect", gen });
    }, delay);
    this.state.update({ state: "backoff", next_retry_at: isoOf(this.deps.clock.now() + delay) });
  }
}
