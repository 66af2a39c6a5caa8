// One folder per connector actor: the CRM stream and what only it uses (transports, OAuth client); shared plumbing is in src/connectors/.
/**
 * The CRM stream connector of one tenant (SOURCES.md, `crm` Stream).
 *
 * Authentication: the OAuth 2.0 JWT bearer flow; any 401 (token endpoint, stream or Bayeux) drops
 * the access token and signs a fresh assertion, at once the first time and with backoff after.
 * Transport: SSE from CRM_STREAM_URL when set, else Bayeux long-poll over {instance}/cometd/{version}.
 *
 * Delivery: transports run outside the mailbox and hand each event over as a `crm.event`
 * message, so events are ingested one at a time, in order. Each goes through the ingest pipeline
 * (src/ingest/deliver.ts) with the new replay ids as connector state, committed with its entries
 * (or its dead letter, or on its own for a duplicate); the next event is ingested only after that
 * commit. A reconnect (after a dropped connection, a
 * failed write or a restart) resumes from the last committed replay id, and the tenant's
 * (source, event_id) dedupe is the second guard. Events of an older connection (`gen`) are
 * ignored: the new connection replays them from the committed position.
 *
 * Failures never escape: a transport that ends sends `crm.closed`, which schedules `crm.connect`
 * through the injected clock after an exponential backoff with jitter, or after exactly the wait
 * the server asked for (`Retry-After` on a 429/503, Bayeux `advice.interval`). Only a 401 drops the
 * access token: an expired Bayeux session is renewed by the transport with the token it holds. A
 * server that advises `reconnect: "none"` is obeyed: the connector stays `halted` (health says why)
 * until it is started again (its secrets change, or the service restarts).
 */
import { Backoff, type BackoffOptions } from "../../../src/connectors/backoff.ts";
import {
  boundedFetch,
  errorMessage,
  type StreamClosed,
  type StreamEvent,
  type StreamHandle,
} from "../../../src/connectors/transport.ts";
import { insecureUrlReason, trimSlash } from "../../../src/connectors/url-policy.ts";
import type { Arrival } from "../../../src/ingest/deliver.ts";
import type { IngestSummary } from "../../../src/ingest/ingest-item.ts";
import { isoOf } from "../../../src/models/common.ts";
import type { CrmStatus, CrmStreamProtocol } from "../../../src/protocols/connector-protocol.ts";
import type { TenantProtocol } from "../../../src/protocols/tenant-protocol.ts";
import type { ActorRef } from "../../../src/runtime/actor-system.ts";
import type { Clock, TimerHandle } from "../../../src/runtime/clock.ts";
import type { Behaviour, MessageOf } from "../../../src/runtime/protocol.ts";
import type { Secrets } from "../../../src/secrets.ts";
import { streamEventOf } from "../../../src/sources/crm/source.ts";
import type { SourceEvent } from "../../../src/sources/types.ts";
import { openBayeuxStream } from "./bayeux-transport.ts";
import { CrmAuthError, CrmJwtBearerClient, decodePrivateKey } from "./crm-auth.ts";
import { openSseStream } from "./sse-transport.ts";

export const CRM_STATE = { replay: "crm:replay", status: "status:crm" } as const;
export const DEFAULT_CHANNELS = ["/data/ChangeEvents"];
export const DEFAULT_API_VERSION = "62.0";
const REQUEST_TIMEOUT_MS = 30_000;
/** A stream quiet this long (no event, no heartbeat comment) is taken for dead and reconnected. */
const DEFAULT_SILENCE_MS = 120_000;
/** A connection that stayed up this long counts as a success: the next failure starts the backoff over. */
const STABLE_MS = 60_000;

export const CRM_REQUIRED = ["CRM_CLIENT_ID", "CRM_PRIVATE_KEY", "CRM_USERNAME", "CRM_INSTANCE_URL"] as const;

/** The committed stream position: replay id per channel, and the SSE cursor (Last-Event-ID). */
export interface CrmReplayState {
  channels: Record<string, string | number>;
  cursor?: string;
}

export interface CrmStreamDeps {
  clock: Clock;
  secrets: Secrets;
  /** Process-wide CRM_LOGIN_URL; CRM_LOGIN_URL_{T} wins over it, the instance URL is the fallback. */
  loginUrl?: string;
  tenant: ActorRef<TenantProtocol>;
  tellSelf: (msg: MessageOf<CrmStreamProtocol>) => void;
  /** A stream silent this long (no event, no heartbeat) is reconnected; default 2 minutes. */
  silenceMs?: number;
  /** The ingest pipeline, for this tenant and the `crm` source (mapping in force, embeddings, writes). */
  deliver: (events: SourceEvent[], arrival: Omit<Arrival, "ctx">) => Promise<IngestSummary>;
  signal?: AbortSignal;
  random?: () => number;
  fetch?: typeof fetch;
  backoff?: Omit<BackoffOptions, "random">;
  log?: (line: string) => void;
}

export interface CrmSettings {
  clientId: string;
  privateKeyPem: string;
  username: string;
  instanceUrl: string;
  audience: string;
  streamUrl?: string;
  channels: string[];
  apiVersion: string;
}

/** The tenant's stream settings, or why the connector cannot start with them. */
export function crmSettingsOf(
  secrets: Secrets,
  tenantId: string,
  loginUrl?: string,
): { ok: true; settings: CrmSettings } | { ok: false; state: "not_configured" | "refused"; reason: string } {
  const get = (base: string) => secrets.get(base, tenantId)?.trim() || undefined;
  const missing = CRM_REQUIRED.filter((base) => !get(base));
  if (missing.length > 0) {
    return {
      ok: false,
      state: "not_configured",
      reason: `missing ${missing.map((b) => `${b}_${tenantId}`).join(", ")}`,
    };
  }
  const instanceUrl = trimSlash(get("CRM_INSTANCE_URL")!);
  const audience = trimSlash(get("CRM_LOGIN_URL") ?? loginUrl ?? instanceUrl);
  const streamUrl = get("CRM_STREAM_URL");
  const checks: Array<[string, string | undefined]> = [
    ["CRM_INSTANCE_URL", instanceUrl],
    ["CRM_LOGIN_URL", audience],
    ["CRM_STREAM_URL", streamUrl],
  ];
  for (const [name, url] of checks) {
    const reason = url === undefined ? undefined : insecureUrlReason(name, url);
    if (reason) return { ok: false, state: "refused", reason };
  }
  const privateKeyPem = get("CRM_PRIVATE_KEY")!;
  try {
    decodePrivateKey(privateKeyPem);
  } catch (error) {
    return { ok: false, state: "refused", reason: errorMessage(error) };
  }
  const channels = (get("CRM_STREAM_CHANNELS") ?? "")
    .split(",")
    .map((c) => c.trim())
    .filter(Boolean);
  const bad = channels.find((c) => !/^\/[A-Za-z0-9_/.*-]{1,250}$/.test(c));
  if (bad !== undefined)
    return { ok: false, state: "refused", reason: "CRM_STREAM_CHANNELS holds an invalid channel name" };
  const apiVersion = get("CRM_API_VERSION") ?? DEFAULT_API_VERSION;
  if (!/^\d{1,3}\.\d$/.test(apiVersion))
    return { ok: false, state: "refused", reason: "CRM_API_VERSION must look like 62.0" };
  return {
    ok: true,
    settings: {
      clientId: get("CRM_CLIENT_ID")!,
      privateKeyPem,
      username: get("CRM_USERNAME")!,
      instanceUrl,
      audience,
      streamUrl,
      channels: channels.length > 0 ? channels : DEFAULT_CHANNELS,
      apiVersion,
    },
  };
}

export function crmStreamBehaviour(tenantId: string, deps: CrmStreamDeps): Behaviour<CrmStreamProtocol> {
  return new CrmStream(tenantId, deps).behaviour();
}

class CrmStream {
  private started = false;
  private loaded = false;
  private settings: CrmSettings | undefined;
  private auth: CrmJwtBearerClient | undefined;
  /** Connection generation: messages and timers of an older connection are ignored. */
  private gen = 0;
  private transport: StreamHandle | undefined;
  private timer: TimerHandle | undefined;
  private openedAt: number | undefined;
  /** Whether the immediate re-authentication after a 401 was used since the last good connection. */
  private reauthenticated = false;
  private replay: CrmReplayState = { channels: {} };
  private status: CrmStatus = {
    state: "not_configured",
    events: 0,
    reconnects: 0,
    authentications: 0,
    last_error: null,
  };
  private readonly backoff: Backoff;
  private readonly fetchImpl: typeof fetch;

  constructor(
    private readonly tenantId: string,
    private readonly deps: CrmStreamDeps,
  ) {
    this.backoff = new Backoff({ baseMs: 1_000, maxMs: 5 * 60_000, ...deps.backoff, random: deps.random });
    this.fetchImpl = boundedFetch(deps.fetch ?? fetch, deps.signal, REQUEST_TIMEOUT_MS);
    deps.signal?.addEventListener("abort", () => this.halt(), { once: true });
  }

  behaviour(): Behaviour<CrmStreamProtocol> {
    return {
      handlers: {
        "crm.start": () => this.start(),
        "crm.connect": async ({ gen }) => {
          if (gen !== this.gen || !this.started) return;
          this.connect(true);
          // Health reads the stored status: a slow reconnect must not show a past backoff.
          await this.saveStatus();
        },
        "crm.opened": ({ gen }) => this.opened(gen),
        "crm.event": ({ gen, event }) => this.event(gen, event),
        "crm.closed": ({ gen, ...closed }) => this.closed(gen, closed),
        "crm.warning": async ({ gen, message }) => {
          if (gen !== this.gen) return;
          this.status = { ...this.status, last_error: message, last_error_at: this.nowIso() };
          await this.saveStatus();
        },
        "crm.status": () => this.snapshot(),
        "crm.stop": async () => {
          this.halt();
          this.status = { ...this.status, state: "stopped", next_retry_at: undefined };
          await this.saveStatus();
        },
      },
      stop: () => this.halt(),
    };
  }

  private get stopping(): boolean {
    return this.deps.signal?.aborted ?? false;
  }

  private halt(): void {
    this.started = false;
    this.gen++;
    this.timer?.cancel();
    this.timer = undefined;
    this.transport?.close();
    this.transport = undefined;
  }

  /** The status with the figures kept elsewhere (assertions are counted by the auth client). */
  private snapshot(): CrmStatus {
    return { ...this.status, authentications: this.auth?.assertions ?? this.status.authentications };
  }

  private nowIso(): string {
    return isoOf(this.deps.clock.now());
  }

  // ── lifecycle ────────────────────────────────────────────────────────────────────────────

  private async start(): Promise<CrmStatus> {
    if (this.started) return this.snapshot();
    try {
      await this.load();
    } catch (error) {
      this.deps.log?.(`[crm-stream ${this.tenantId}] cannot read connector state: ${errorMessage(error)}`);
      return this.snapshot();
    }
    const read = crmSettingsOf(this.deps.secrets, this.tenantId, this.deps.loginUrl);
    if (!read.ok) {
      this.status = {
        ...this.status,
        state: read.state,
        last_error: read.reason,
        last_error_at: this.nowIso(),
      };
      await this.saveStatus();
      return this.snapshot();
    }
    const settings = read.settings;
    this.settings = settings;
    this.auth = new CrmJwtBearerClient({
      clientId: settings.clientId,
      username: settings.username,
      audience: settings.audience,
      privateKeyPem: settings.privateKeyPem,
      clock: this.deps.clock,
      fetch: this.fetchImpl,
    });
    this.started = true;
    this.status = {
      ...this.status,
      transport: settings.streamUrl ? "sse" : "bayeux",
      channels: settings.streamUrl ? undefined : settings.channels,
      replay: { ...this.replay.channels },
    };
    this.connect(false);
    await this.saveStatus();
    return this.snapshot();
  }

  /** Opens a new connection; authentication and the transport run outside the mailbox. */
  private connect(again: boolean): void {
    if (!this.started || this.stopping || !this.settings || !this.auth) return;
    this.timer?.cancel();
    this.timer = undefined;
    this.transport?.close();
    this.transport = undefined;
    const gen = ++this.gen;
    this.status = {
      ...this.status,
      state: "connecting",
      next_retry_at: undefined,
      reconnects: this.status.reconnects + (again ? 1 : 0),
    };
    void this.open(gen, this.settings, this.auth);
  }

  private async open(gen: number, settings: CrmSettings, auth: CrmJwtBearerClient): Promise<void> {
    const tell = (msg: MessageOf<CrmStreamProtocol>) => {
      if (gen === this.gen && !this.stopping) this.deps.tellSelf(msg);
    };
    try {
      const { accessToken } = await auth.token();
      if (gen !== this.gen || !this.started || this.stopping) return;
      const handlers = {
        onOpen: () => tell({ type: "crm.opened", gen }),
        onEvent: (event: StreamEvent) => tell({ type: "crm.event", gen, event }),
        onWarning: (message: string) => tell({ type: "crm.warning", gen, message }),
        onClosed: (closed: StreamClosed) => tell({ type: "crm.closed", gen, ...closed }),
      };
      this.transport = settings.streamUrl
        ? openSseStream(
            {
              url: settings.streamUrl,
              accessToken,
              lastEventId: this.replay.cursor,
              silence: { clock: this.deps.clock, ms: this.deps.silenceMs ?? DEFAULT_SILENCE_MS },
              clock: this.deps.clock,
              defaultChannel: settings.channels[0] ?? DEFAULT_CHANNELS[0]!,
              fetch: boundedFetch(this.deps.fetch ?? fetch, this.deps.signal),
            },
            handlers,
          )
        : openBayeuxStream(
            {
              endpoint: `${settings.instanceUrl}/cometd/${settings.apiVersion}`,
              accessToken,
              channels: settings.channels,
              replay: numericReplay(this.replay.channels),
              fetch: this.deps.fetch,
              clock: this.deps.clock,
            },
            handlers,
          );
    } catch (error) {
      const auth = error instanceof CrmAuthError ? error : undefined;
      tell({
        type: "crm.closed",
        gen,
        reason: `authentication failed: ${errorMessage(error)}`,
        status: auth?.status,
        retryAfterMs: auth?.retryAfterMs,
      });
    }
  }

  private async opened(gen: number): Promise<void> {
    if (gen !== this.gen || !this.started) return;
    this.openedAt = this.deps.clock.now();
    this.reauthenticated = false;
    this.status = {
      ...this.status,
      state: "connected",
      connected_at: this.nowIso(),
      next_retry_at: undefined,
    };
    await this.saveStatus();
  }

  private async closed(gen: number, closed: StreamClosed): Promise<void> {
    if (gen !== this.gen || !this.started) return;
    this.transport?.close();
    this.transport = undefined;
    const now = this.deps.clock.now();
    if (this.openedAt !== undefined && now - this.openedAt >= STABLE_MS) this.backoff.reset();
    this.openedAt = undefined;
    this.status = { ...this.status, last_error: closed.reason, last_error_at: isoOf(now) };
    if (closed.final) {
      this.halt();
      this.status = { ...this.status, state: "halted", next_retry_at: undefined };
      await this.saveStatus();
      return;
    }
    if (closed.status === 401) {
      // No refresh tokens: a 401 means a new assertion. Once at once; repeated 401s back off.
      this.auth?.invalidate();
      if (!this.reauthenticated) {
        this.reauthenticated = true;
        this.connect(true);
        await this.saveStatus();
        return;
      }
    }
    this.scheduleReconnect(closed.retryAfterMs);
    await this.saveStatus();
  }

  /** The server's wait when it named one, else the backoff's (whose attempt counter moves on either way). */
  private scheduleReconnect(serverDelayMs?: number): void {
    if (!this.started || this.stopping) return;
    const backoffMs = this.backoff.next();
    const delay = serverDelayMs ?? backoffMs;
    const gen = this.gen;
    this.timer?.cancel();
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = undefined;
      if (!this.stopping) this.deps.tellSelf({ type: "crm.connect", gen });
    }, delay);
    this.status = { ...this.status, state: "backoff", next_retry_at: isoOf(this.deps.clock.now() + delay) };
  }

  // ── events ───────────────────────────────────────────────────────────────────────────────

  private async event(gen: number, event: StreamEvent): Promise<void> {
    if (gen !== this.gen || !this.started || this.stopping) return;
    const replay: CrmReplayState = {
      channels: { ...this.replay.channels, [event.channel]: event.replayId },
      cursor: event.cursor ?? this.replay.cursor,
    };
    const status: CrmStatus = {
      ...this.snapshot(),
      events: this.status.events + 1,
      last_event_at: this.nowIso(),
      replay: { ...replay.channels },
    };
    try {
      // The new position commits with the event's entries (or on its own for a duplicate, an
      // ignored change or a dead letter): a restart resumes right after it.
      await this.deps.deliver([streamEventOf(event)], {
        headers: { "x-crm-channel": event.channel, "x-crm-transport": status.transport ?? "" },
        state: [
          [CRM_STATE.replay, replay],
          [CRM_STATE.status, status],
        ],
      });
      this.replay = replay;
      this.status = status;
      this.backoff.reset();
    } catch (error) {
      // Not written: drop this connection and resume from the last committed position.
      if (this.stopping || gen !== this.gen) return;
      this.transport?.close();
      this.transport = undefined;
      this.gen++;
      this.status = {
        ...this.status,
        last_error: `write failed: ${errorMessage(error)}`,
        last_error_at: this.nowIso(),
      };
      this.scheduleReconnect();
      await this.saveStatus();
    }
  }

  // ── state ────────────────────────────────────────────────────────────────────────────────

  private async load(): Promise<void> {
    if (this.loaded) return;
    const [replay, status] = await Promise.all([
      this.deps.tenant.ask({ type: "connector.state.get", key: CRM_STATE.replay }),
      this.deps.tenant.ask({ type: "connector.state.get", key: CRM_STATE.status }),
    ]);
    this.replay = replayStateOf(replay);
    if (typeof status === "object" && status !== null) {
      const stored = status as Partial<CrmStatus>;
      this.status = {
        ...this.status,
        events: stored.events ?? 0,
        reconnects: stored.reconnects ?? 0,
        last_event_at: stored.last_event_at,
      };
    }
    this.loaded = true;
  }

  private async saveStatus(): Promise<void> {
    if (this.stopping) return;
    try {
      await this.deps.tenant.ask({
        type: "connector.state.put",
        key: CRM_STATE.status,
        value: this.snapshot(),
      });
    } catch (error) {
      this.deps.log?.(`[crm-stream ${this.tenantId}] cannot store status: ${errorMessage(error)}`);
    }
  }
}

export function replayStateOf(value: unknown): CrmReplayState {
  if (typeof value !== "object" || value === null) return { channels: {} };
  const v = value as Record<string, unknown>;
  const channels: Record<string, string | number> = {};
  if (typeof v.channels === "object" && v.channels !== null) {
    for (const [channel, id] of Object.entries(v.channels)) {
      if (typeof id === "number" || typeof id === "string") channels[channel] = id;
    }
  }
  return { channels, cursor: typeof v.cursor === "string" ? v.cursor : undefined };
}

/** Bayeux replay ids are integers; anything else (an SSE cursor from another transport) is left out. */
function numericReplay(channels: Record<string, string | number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [channel, id] of Object.entries(channels)) {
    const n = Number(id);
    if (Number.isSafeInteger(n) && n >= 0) out[channel] = n;
  }
  return out;
}
