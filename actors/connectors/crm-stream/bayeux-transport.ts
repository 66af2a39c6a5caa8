/**
 * The CRM's long-poll streaming: Bayeux over `{instance}/cometd/{version}` with fetch. Handshake
 * (replay extension on), one subscribe per channel carrying `ext.replay = {channel: replayId}`,
 * then a connect loop the server holds open until events arrive. The session cookie the server
 * sets is sent back on every request.
 *
 * The server's advice is followed: `interval` is waited (on the injected clock) before the next
 * connect or handshake; `reconnect: "retry"` polls again, `"handshake"` (and an expired session,
 * `402::Unknown client` / `403::Unknown client`) starts a new session with the same access token
 * from the replay ids of the events already handed over, and `"none"` ends the stream for good
 * (`final`). Anything else ends the stream with one `onClosed`, carrying the server's `Retry-After`
 * or advised interval when there was one, for the connector's reconnect.
 */

import { boundedServerDelay, retryAfterOf } from "../../../src/connectors/retry-after.ts";
import {
  errorMessage,
  eventUuidOf,
  type StreamClosed,
  type StreamEvent,
  type StreamHandle,
  type StreamHandlers,
} from "../../../src/connectors/transport.ts";
import { trimSlash } from "../../../src/connectors/url-policy.ts";
import { type Clock, systemClock } from "../../../src/runtime/clock.ts";

/** Replay id for "only events after now" (no stored id). */
export const REPLAY_NEW = -1;
/** Replay id for "every event the platform still retains". */
export const REPLAY_ALL = -2;

export interface BayeuxOptions {
  /** `{instance}/cometd/{version}`. */
  endpoint: string;
  accessToken: string;
  channels: string[];
  /** The replay id to resume each channel from (the last committed one); absent → REPLAY_NEW. */
  replay: Readonly<Record<string, number>>;
  fetch?: typeof fetch;
  /** How long one request may take beyond the server's advised long-poll timeout. */
  graceMs?: number;
  /** Waits `advice.interval` and reads HTTP-date `Retry-After`s; the system clock by default. */
  clock?: Clock;
}

/** A new session in a row without a single event: after this many, leave it to the connector's backoff. */
const MAX_REHANDSHAKES = 3;
/** Unsuccessful connects in a row the server advised to retry: after this many, the connector's backoff. */
const MAX_FAILED_CONNECTS = 3;
const DEFAULT_POLL_TIMEOUT_MS = 110_000;

class Closed extends Error {
  constructor(readonly closed: StreamClosed) {
    super(closed.reason);
  }
}

type Message = Record<string, unknown>;

export function openBayeuxStream(options: BayeuxOptions, handlers: StreamHandlers): StreamHandle {
  const session = new BayeuxSession(options, handlers);
  void session.run();
  return { close: () => session.close() };
}

class BayeuxSession {
  private readonly controller = new AbortController();
  private readonly cookies = new Map<string, string>();
  private readonly replay: Record<string, number>;
  private readonly fetchImpl: typeof fetch;
  private readonly clock: Clock;
  private closed = false;
  private seq = 0;
  private pollTimeoutMs = DEFAULT_POLL_TIMEOUT_MS;
  /** The server's latest `advice.interval`: the wait before the next connect or handshake. */
  private intervalMs = 0;

  constructor(
    private readonly options: BayeuxOptions,
    private readonly handlers: StreamHandlers,
  ) {
    this.replay = { ...options.replay };
    this.fetchImpl = options.fetch ?? fetch;
    this.clock = options.clock ?? systemClock;
  }

  close(): void {
    this.closed = true;
    this.controller.abort();
  }

  async run(): Promise<void> {
    try {
      let rehandshakes = 0;
      while (!this.closed) {
        const clientId = await this.handshake();
        await this.subscribeAll(clientId);
        if (this.closed) return;
        this.handlers.onOpen();
        const delivered = await this.connectLoop(clientId);
        rehandshakes = delivered ? 0 : rehandshakes + 1;
        if (rehandshakes >= MAX_REHANDSHAKES)
          throw new Closed({ reason: "server keeps dropping the session" });
      }
    } catch (error) {
      if (this.closed) return;
      this.closed = true;
      this.controller.abort();
      const closed =
        error instanceof Closed ? error.closed : { reason: `stream failed: ${errorMessage(error)}` };
      this.handlers.onClosed(closed);
    }
  }

  private async handshake(): Promise<string> {
    this.cookies.clear();
    const [reply] = await this.send("handshake", [
      {
        channel: "/meta/handshake",
        version: "1.0",
        minimumVersion: "1.0",
        supportedConnectionTypes: ["long-polling"],
        ext: { replay: true },
      },
    ]);
    if (reply?.successful !== true || typeof reply.clientId !== "string") {
      const advice = adviceOf(reply);
      if (advice.reconnect === "none") throw new Closed(refusedForGood("handshake"));
      const retryAfterMs = boundedServerDelay(advice.interval);
      throw new Closed({ ...failure("handshake", reply), ...(retryAfterMs ? { retryAfterMs } : {}) });
    }
    this.adopt(reply.advice);
    return reply.clientId;
  }

  private async subscribeAll(clientId: string): Promise<void> {
    for (const channel of this.options.channels) {
      const from = this.replay[channel] ?? REPLAY_NEW;
      let reply = await this.subscribe(clientId, channel, from);
      if (reply?.successful !== true && from >= 0 && /replay/i.test(String(reply?.error ?? ""))) {
        // The stored id is older than the platform's retention: take every retained event instead
        // (the tenant's dedupe drops the ones already written) and say so.
        this.handlers.onWarning?.(
          `replay id ${from} of ${channel} is no longer retained; resumed from the oldest retained event`,
        );
        reply = await this.subscribe(clientId, channel, REPLAY_ALL);
      }
      if (reply?.successful !== true) throw new Closed(failure(`subscribe ${channel}`, reply));
    }
  }

  private async subscribe(clientId: string, channel: string, replayId: number): Promise<Message | undefined> {
    const replies = await this.send("subscribe", [
      {
        channel: "/meta/subscribe",
        clientId,
        subscription: channel,
        ext: { replay: { [channel]: replayId } },
      },
    ]);
    return replies.find((m) => m.channel === "/meta/subscribe") ?? replies[0];
  }

  /** Polls until the session must be renewed (returns whether any event arrived) or the stream ends (throws). */
  private async connectLoop(clientId: string): Promise<boolean> {
    let delivered = false;
    let failedConnects = 0;
    while (!this.closed) {
      const replies = await this.send("connect", [
        { channel: "/meta/connect", clientId, connectionType: "long-polling" },
      ]);
      let next: Next = "retry";
      for (const message of replies) {
        if (this.closed) return delivered;
        if (message.channel === "/meta/connect") {
          next = this.connectReply(message);
          failedConnects = message.successful === true ? 0 : failedConnects + 1;
          if (failedConnects >= MAX_FAILED_CONNECTS) throw new Closed(failure("connect", message));
          continue;
        }
        if (typeof message.channel === "string" && message.channel.startsWith("/meta/")) continue;
        const event = eventOf(message);
        if (!event) {
          this.handlers.onWarning?.(`an event on ${String(message.channel)} without a replay id was skipped`);
          continue;
        }
        this.replay[event.channel] = Number(event.replayId);
        delivered = true;
        this.handlers.onEvent(event);
      }
      // The advised interval comes before the next request, whether a connect or a new handshake.
      await this.pause(this.intervalMs);
      if (next === "handshake") return delivered;
    }
    return delivered;
  }

  /** What the server wants next; throws when it asks us to stop or refuses us. */
  private connectReply(message: Message): Next {
    this.adopt(message.advice);
    const advice = adviceOf(message);
    if (advice.reconnect === "none") throw new Closed(refusedForGood("connect"));
    if (message.successful === true) return advice.reconnect === "handshake" ? "handshake" : "retry";
    const error = String(message.error ?? "");
    if (error.startsWith("401")) throw new Closed({ reason: "connect refused: 401", status: 401 });
    // An expired or forgotten session: a new one, with the access token we hold (it is still valid).
    if (advice.reconnect === "handshake" || /^40[23]::/.test(error)) return "handshake";
    if (advice.reconnect === "retry") return "retry";
    throw new Closed(failure("connect", message));
  }

  /** Advice holds until the server changes it (Bayeux §5.2): a message without a field keeps the last value. */
  private adopt(raw: unknown): void {
    const advice = recordOf(raw);
    const timeout = advice.timeout;
    if (typeof timeout === "number" && timeout >= 0 && timeout <= 10 * 60_000) this.pollTimeoutMs = timeout;
    const interval = boundedServerDelay(advice.interval);
    if (interval !== undefined) this.intervalMs = interval;
  }

  /** Waits on the connector's clock; `close()` ends the wait at once. */
  private pause(ms: number): Promise<void> {
    if (ms <= 0 || this.closed) return Promise.resolve();
    const signal = this.controller.signal;
    return new Promise((resolve) => {
      const done = () => {
        signal.removeEventListener("abort", done);
        timer.cancel();
        resolve();
      };
      const timer = this.clock.setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
    });
  }

  private async send(type: string, messages: Message[]): Promise<Message[]> {
    const body = JSON.stringify(messages.map((m) => ({ ...m, id: String(++this.seq) })));
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.options.accessToken}`,
      "content-type": "application/json",
      accept: "application/json",
    };
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const signal = AbortSignal.any([
      this.controller.signal,
      AbortSignal.timeout(this.pollTimeoutMs + (this.options.graceMs ?? 30_000)),
    ]);
    let response: Response;
    try {
      response = await this.fetchImpl(`${trimSlash(this.options.endpoint)}/${type}`, {
        method: "POST",
        headers,
        body,
        signal,
      });
    } catch (error) {
      throw new Closed({
        reason: `${type}: ${signal.aborted ? "request aborted or timed out" : `unreachable (${errorMessage(error)})`}`,
      });
    }
    this.keepCookies(response);
    if (response.status === 401) throw new Closed({ reason: `${type}: 401`, status: 401 });
    if (!response.ok) {
      const retryAfterMs = retryAfterOf(response, this.clock.now());
      throw new Closed({
        reason: `${type}: answered ${response.status}`,
        status: response.status,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      // The connection went in the middle of the answer: a network failure, not a protocol one.
      throw new Closed({ reason: `${type}: connection lost mid-answer (${errorMessage(error)})` });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Closed({ reason: `${type}: answer is not JSON` });
    }
    if (!Array.isArray(parsed)) throw new Closed({ reason: `${type}: answer is not a Bayeux message list` });
    return parsed.filter((m): m is Message => typeof m === "object" && m !== null);
  }

  private keepCookies(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(";", 1)[0] ?? "";
      const eq = pair.indexOf("=");
      if (eq > 0) this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  }
}

type Next = "retry" | "handshake";

function recordOf(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}

function adviceOf(message: Message | undefined): Record<string, unknown> {
  return recordOf(message?.advice);
}

function refusedForGood(what: string): StreamClosed {
  return { reason: `${what}: server advised not to reconnect`, final: true };
}

function failure(what: string, reply: Message | undefined): StreamClosed {
  const error = typeof reply?.error === "string" ? reply.error.slice(0, 200) : "no reply";
  const status = /^(\d{3})::/.exec(error)?.[1];
  return { reason: `${what} failed: ${error}`, status: status ? Number(status) : undefined };
}

/** A data message: `{channel, data: {payload, event: {replayId, EventUuid?}}}`. */
function eventOf(message: Message): StreamEvent | undefined {
  const data = message.data as Record<string, unknown> | undefined;
  const meta = (data?.event ?? {}) as Record<string, unknown>;
  const replayId = Number(meta.replayId);
  if (typeof message.channel !== "string" || !Number.isSafeInteger(replayId)) return undefined;
  return {
    channel: message.channel,
    replayId,
    payload: data?.payload ?? data?.sobject,
    eventUuid: eventUuidOf(meta),
  };
}
