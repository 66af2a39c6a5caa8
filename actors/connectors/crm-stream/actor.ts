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
 * commit. A reconnect (after a dropped connection, a failed write or a restart) resumes from the
 * last committed replay id, and the tenant's (source, event_id) dedupe is the second guard. Events of an older connection (`gen`) are
 * ignored: the new connection replays them from the committed position.
 *
 * Failures never escape: a transport that ends sends `crm.closed`, which schedules `crm.connect`
 * through the injected clock after an exponential backoff with jitter, or after exactly the wait
 * the server asked for (`Retry-After` on a 429/503, Bayeux `advice.interval`). Only a 401 drops the
 * access token: an expired Bayeux session is renewed by the transport with the token it holds. A
 * server that advises `reconnect: "none"` is obeyed: the connector stays `halted` (health says why)
 * until it is started again (its secrets change, or the service restarts).
 *
 * The parts: settings.ts (secrets → settings), state.ts (position and status in the vault),
 * connection.ts (open, opened, closed, reconnect) with open-transport.ts, events.ts (one change
 * ingested), and the transports and the OAuth client they use.
 */
import { boundedFetch, errorMessage } from "../../../src/connectors/transport.ts";
import type { CrmStatus, CrmStreamProtocol } from "../../../src/protocols/connector-protocol.ts";
import type { Behaviour } from "../../../src/runtime/protocol.ts";
import type { Secrets } from "../../../src/secrets/secrets.ts";
import { tracedFetch } from "../../../src/telemetry/traced-fetch.ts";
import { type ConnectionDeps, CrmConnection } from "./connection.ts";
import { CrmJwtBearerClient } from "./crm-auth.ts";
import { type Deliver, ingestStreamEvent } from "./events.ts";
import { crmSettingsOf } from "./settings.ts";
import { type CrmStateDeps, CrmStreamState } from "./state.ts";

export { CRM_REQUIRED } from "./settings.ts";

const REQUEST_TIMEOUT_MS = 30_000;

export interface CrmStreamDeps extends CrmStateDeps, ConnectionDeps {
  secrets: Secrets;
  /** Process-wide CRM_LOGIN_URL; CRM_LOGIN_URL_{T} wins over it, the instance URL is the fallback. */
  loginUrl?: string;
  /** The ingest pipeline, for this tenant and the `crm` source (mapping in force, embeddings, writes). */
  deliver: Deliver;
}

export function crmStreamBehaviour(tenantId: string, deps: CrmStreamDeps): Behaviour<CrmStreamProtocol> {
  return new CrmStream(tenantId, deps).behaviour();
}

/** The actor: its lifecycle (start, stop) and the routing of its messages to the connection and events. */
class CrmStream {
  private readonly state: CrmStreamState;
  private readonly connection: CrmConnection;
  private readonly fetchImpl: typeof fetch;

  constructor(
    private readonly tenantId: string,
    private readonly deps: CrmStreamDeps,
  ) {
    this.state = new CrmStreamState(tenantId, deps, () => this.connection.auth?.assertions);
    this.connection = new CrmConnection(this.state, deps);
    const fetched = tracedFetch(deps.fetch ?? fetch, deps.telemetry, "crm-stream");
    this.fetchImpl = boundedFetch(fetched, deps.signal, REQUEST_TIMEOUT_MS);
    deps.signal?.addEventListener("abort", () => this.connection.halt(), { once: true });
  }

  behaviour(): Behaviour<CrmStreamProtocol> {
    const { state, connection } = this;
    return {
      handlers: {
        "crm.start": () => this.start(),
        "crm.connect": async ({ gen }) => {
          if (!connection.isCurrent(gen)) return;
          connection.connect(true);
          // Health reads the stored status: a slow reconnect must not show a past backoff.
          await state.save();
        },
        "crm.opened": ({ gen }) => connection.opened(gen),
        "crm.event": ({ gen, event }) =>
          ingestStreamEvent(gen, event, { state, connection, deliver: this.deps.deliver }),
        "crm.closed": ({ gen, ...closed }) => connection.closed(gen, closed),
        "crm.warning": async ({ gen, message }) => {
          if (!connection.isLatest(gen)) return;
          state.update({ last_error: message, last_error_at: state.nowIso() });
          await state.save();
        },
        "crm.status": () => state.snapshot(),
        "crm.stop": async () => {
          connection.halt();
          state.update({ state: "stopped", next_retry_at: undefined });
          await state.save();
        },
      },
      stop: () => connection.halt(),
    };
  }

  /** Reads the stored position and the settings, then connects; a start of a started stream is a status read. */
  private async start(): Promise<CrmStatus> {
    const { state, connection } = this;
    if (connection.running) return state.snapshot();
    try {
      await state.load();
    } catch (error) {
      this.deps.log?.(`[crm-stream ${this.tenantId}] cannot read connector state: ${errorMessage(error)}`);
      return state.snapshot();
    }
    const read = crmSettingsOf(this.deps.secrets, this.tenantId, this.deps.loginUrl);
    if (!read.ok) {
      state.update({ state: read.state, last_error: read.reason, last_error_at: state.nowIso() });
      await state.save();
      return state.snapshot();
    }
    const { settings } = read;
    const auth = new CrmJwtBearerClient({
      clientId: settings.clientId,
      username: settings.username,
      audience: settings.audience,
      privateKeyPem: settings.privateKeyPem,
      clock: this.deps.clock,
      fetch: this.fetchImpl,
    });
    connection.begin(settings, auth);
    state.update({
      transport: settings.streamUrl ? "sse" : "bayeux",
      channels: settings.streamUrl ? undefined : settings.channels,
      replay: { ...state.replay.channels },
    });
    connection.connect(false);
    await state.save();
    return state.snapshot();
  }
}
