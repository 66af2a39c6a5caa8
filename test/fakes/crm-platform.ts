/**
 * A local fake of the CRM platform (Bun.serve on 127.0.0.1, a free port) for the stream connector:
 *   POST /services/oauth2/token  the JWT bearer grant; checks the assertion's RS256 signature with
 *                                the connected app's public key, its iss/sub/aud/exp
 *   GET  /stream                 server-sent events; honours Last-Event-ID, can drop connections
 *   POST /cometd/{version}[/type] Bayeux long-poll: handshake (session cookie), subscribe with the
 *                                replay extension, connect held until events arrive
 * Events carry increasing replay ids, one sequence across channels; all are retained unless
 * `retainFrom` says otherwise. Every knob a test needs is a field or a method; network faults
 * (error statuses with Retry-After, resets, slow answers, cut streams, Bayeux advice) are planned
 * through `fake.faults` (test/fakes/fault-plan.ts).
 */
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { importSPKI, jwtVerify } from "jose";
import { type Clock, systemClock } from "../../src/runtime/clock.ts";
import { FaultPlan, type InlineFault, resetConnection } from "./fault-plan.ts";

export interface FakeCrmOptions {
  /** The connected app's public key (SPKI PEM) that assertions must verify against. */
  publicKeyPem: string;
  clientId?: string;
  username?: string;
  now?: () => number;
  /** The test's clock: faults' delays are held on it, requests are logged with its time. */
  clock?: Clock;
  /** How long a Bayeux connect is held when there is nothing to send. */
  pollMs?: number;
}

export interface PublishedEvent {
  replayId: number;
  channel: string;
  uuid: string;
  payload: Record<string, unknown>;
}

export interface PublishOptions {
  channel?: string;
  /** Leave out the event's own id (EventUuid), so the connector falls back to `<channel>:<replayId>`. */
  withoutUuid?: boolean;
  /** Send a payload that is not a change event. */
  rawPayload?: Record<string, unknown>;
}

interface SseClient {
  controller: ReadableStreamDefaultController<Uint8Array>;
  cursor: number;
  /** A half-dead connection: kept open, but nothing reaches it any more. */
  stalled?: boolean;
  /** Events sent on this stream. */
  sent: number;
  /** A planned cut: the stream ends after this many events (half of the next one with `midFrame`). */
  cut?: { afterEvents: number; midFrame?: boolean };
}

interface BayeuxClient {
  cursors: Map<string, number>;
  cookie: string;
}

interface Waiter {
  resolve(outcome: "event" | "drop" | "timeout"): void;
}

const encoder = new TextEncoder();

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

export async function startFakeCrmPlatform(options: FakeCrmOptions) {
  const now = options.now ?? (options.clock ? () => options.clock!.now() : () => Date.now());
  const publicKey = await importSPKI(options.publicKeyPem, "RS256");
  const pollMs = options.pollMs ?? 1000;
  const issued = new Set<string>();
  const sseClients = new Set<SseClient>();
  let latestSse: SseClient | undefined;
  const bayeuxClients = new Map<string, BayeuxClient>();
  const waiters = new Set<Waiter>();
  let seq = 0;
  let tokenSeq = 0;
  let clientSeq = 0;

  const fake = {
    url: "",
    clientId: options.clientId ?? "3MVG9-fake-consumer-key",
    username: options.username ?? "integration@example.com",
    events: [] as PublishedEvent[],
    /** Replay ids below this are no longer retained (subscribe with an older id fails). */
    retainFrom: 1,
    hits: { token: 0, stream: 0, handshake: 0, subscribe: 0, connect: 0 },
    /** The `jti` of every assertion accepted, in order: a new assertion each time. */
    assertions: [] as string[],
    /** Why assertions were refused. */
    refusedAssertions: [] as string[],
    /** Last-Event-ID of each SSE request (null when absent). */
    lastEventIds: [] as (string | null)[],
    /** The replay id of each Bayeux subscription. */
    subscriptions: [] as { channel: string; replayId: number }[],
    /** Requests to the token endpoint to answer 401, whatever they carry. */
    rejectTokenRequests: 0,
    /** Stream and Bayeux requests to answer 401 (as for an expired session). */
    rejectStreamRequests: 0,
    /** Faults planned for the next requests, and what was injected. */
    faults: new FaultPlan(options.clock ?? systemClock),
    /** Events sent on SSE streams (a cut stream's half event is not counted). */
    sseSent: 0,

    /** Publishes a change event on a channel; it is delivered to every live subscriber. */
    publish(
      entityName: string,
      changeType: string,
      recordIds: string[],
      fields: Record<string, unknown>,
      opts: PublishOptions = {},
    ): PublishedEvent {
      const replayId = ++seq;
      const payload = opts.rawPayload ?? {
        ChangeEventHeader: {
          entityName,
          changeType,
          recordIds,
          commitTimestamp: now() - 1000,
          transactionKey: randomUUID(),
          sequenceNumber: 1,
          changeOrigin: "com/salesforce/api/rest/62.0",
          commitUser: "005xx000001X8Uz",
        },
        ...fields,
      };
      const event: PublishedEvent = {
        replayId,
        channel: opts.channel ?? "/data/ChangeEvents",
        uuid: opts.withoutUuid ? "" : randomUUID(),
        payload,
      };
      fake.events.push(event);
      for (const client of sseClients) sendSse(client);
      for (const waiter of [...waiters]) waiter.resolve("event");
      return event;
    },

    /** Ends every SSE stream and answers every held long-poll with 503, as a network drop would. */
    dropConnections(): void {
      for (const client of sseClients) {
        try {
          client.controller.close();
        } catch {}
      }
      sseClients.clear();
      for (const waiter of [...waiters]) waiter.resolve("drop");
    },

    /** Forgets every Bayeux session: the next connect is told "403::Unknown client" (rehandshake). */
    forgetSessions(): void {
      bayeuxClients.clear();
      for (const waiter of [...waiters]) waiter.resolve("timeout");
    },

    /** Makes every issued access token invalid (the stream then answers 401). */
    revokeTokens(): void {
      issued.clear();
    },

    /** Every open SSE stream goes quiet but stays open (a half-dead connection); new streams are fine. */
    stallStreams(): void {
      for (const client of sseClients) client.stalled = true;
    },

    /** A heartbeat comment on every live (not stalled) SSE stream. */
    heartbeat(): void {
      for (const client of sseClients) {
        if (client.stalled) continue;
        try {
          client.controller.enqueue(encoder.encode(": heartbeat\n\n"));
        } catch {
          sseClients.delete(client);
        }
      }
    },

    liveStreams(): number {
      return sseClients.size;
    },

    /** Whether the SSE stream opened last is still open (not cut, dropped or closed by its client). */
    latestStreamOpen(): boolean {
      return latestSse !== undefined && sseClients.has(latestSse);
    },

    /** Bayeux connects being held open right now. */
    heldPolls(): number {
      return waiters.size;
    },

    stop(): void {
      fake.dropConnections();
      server.stop(true);
    },
  };

  function sseFrame(event: PublishedEvent): Uint8Array {
    const data = {
      channel: event.channel,
      data: {
        schema: "fake-schema-id",
        payload: event.payload,
        event: { replayId: event.replayId, ...(event.uuid ? { EventUuid: event.uuid } : {}) },
      },
    };
    return encoder.encode(`id: ${event.replayId}\nevent: message\ndata: ${JSON.stringify(data)}\n\n`);
  }

  function sendSse(client: SseClient): void {
    if (client.stalled) return;
    for (const event of fake.events) {
      if (event.replayId <= client.cursor) continue;
      if (cutIfDue(client, event)) return;
      try {
        client.controller.enqueue(sseFrame(event));
        client.cursor = event.replayId;
        client.sent++;
        fake.sseSent++;
      } catch {
        sseClients.delete(client);
        return;
      }
    }
    cutIfDue(client);
  }

  /** Ends a stream whose planned cut is due; `next` is the event that would have been sent. */
  function cutIfDue(client: SseClient, next?: PublishedEvent): boolean {
    if (!client.cut || client.sent < client.cut.afterEvents) return false;
    sseClients.delete(client);
    try {
      if (next && client.cut.midFrame) {
        const frame = sseFrame(next);
        client.controller.enqueue(frame.slice(0, Math.floor(frame.length / 2)));
      }
      client.controller.close();
    } catch {}
    return true;
  }

  function authorised(req: Request): boolean {
    const match = /^Bearer (.+)$/.exec(req.headers.get("authorization") ?? "");
    return match !== null && issued.has(match[1]!);
  }

  function sessionExpired(): Response {
    return json([{ errorCode: "INVALID_SESSION_ID", message: "Session expired or invalid" }], 401);
  }

  async function token(req: Request): Promise<Response> {
    fake.hits.token++;
    if (fake.rejectTokenRequests > 0) {
      fake.rejectTokenRequests--;
      return json({ error: "invalid_client", error_description: "told to refuse" }, 401);
    }
    const form = new URLSearchParams(await req.text());
    if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") {
      return json({ error: "unsupported_grant_type", error_description: "grant type not supported" }, 400);
    }
    try {
      const { payload } = await jwtVerify(form.get("assertion") ?? "", publicKey, {
        algorithms: ["RS256"],
        issuer: fake.clientId,
        subject: fake.username,
        audience: fake.url,
        requiredClaims: ["exp"],
        currentDate: new Date(now()),
      });
      if (typeof payload.exp !== "number" || payload.exp * 1000 > now() + 5 * 60_000)
        throw new Error("exp too far");
      fake.assertions.push(String(payload.jti ?? ""));
    } catch (error) {
      fake.refusedAssertions.push(error instanceof Error ? error.message : String(error));
      return json({ error: "invalid_grant", error_description: "invalid assertion" }, 400);
    }
    const accessToken = `00Dxx!fake-${++tokenSeq}`;
    issued.add(accessToken);
    return json({
      access_token: accessToken,
      scope: "api",
      instance_url: fake.url,
      id: `${fake.url}/id/00Dxx0000001gPL/005xx000001X8Uz`,
      token_type: "Bearer",
    });
  }

  function stream(req: Request, fault?: InlineFault): Response {
    fake.hits.stream++;
    if (fake.rejectStreamRequests > 0) {
      fake.rejectStreamRequests--;
      return sessionExpired();
    }
    if (!authorised(req)) return sessionExpired();
    const lastEventId = req.headers.get("last-event-id");
    fake.lastEventIds.push(lastEventId);
    // Without Last-Event-ID only new events are sent (replay -1), as the platform does.
    const cursor = lastEventId !== null && /^\d+$/.test(lastEventId) ? Number(lastEventId) : seq;
    let client: SseClient | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const cut = fault?.kind === "cut" ? fault : undefined;
        client = { controller, cursor, sent: 0, cut };
        latestSse = client;
        controller.enqueue(encoder.encode(": connected\n\n"));
        sseClients.add(client);
        sendSse(client);
      },
      cancel() {
        if (client) sseClients.delete(client);
      },
    });
    return new Response(body, {
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
    });
  }

  function cookieOf(req: Request): string | undefined {
    return /(?:^|;\s*)BAYEUX_BROWSER=([^;]+)/.exec(req.headers.get("cookie") ?? "")?.[1];
  }

  function unknownClient(message: Record<string, unknown>) {
    return {
      channel: message.channel,
      id: message.id,
      successful: false,
      error: "403::Unknown client",
      advice: { reconnect: "handshake", interval: 0 },
    };
  }

  function clientOf(req: Request, message: Record<string, unknown>): BayeuxClient | undefined {
    const client = bayeuxClients.get(String(message.clientId));
    return client && client.cookie === cookieOf(req) ? client : undefined;
  }

  function pendingFor(client: BayeuxClient): PublishedEvent[] {
    return fake.events.filter((e) => {
      const cursor = client.cursors.get(e.channel);
      return cursor !== undefined && e.replayId > cursor;
    });
  }

  function deliver(client: BayeuxClient, events: PublishedEvent[]) {
    return events.map((e) => {
      client.cursors.set(e.channel, Math.max(client.cursors.get(e.channel) ?? 0, e.replayId));
      return {
        channel: e.channel,
        data: {
          schema: "fake-schema-id",
          payload: e.payload,
          event: { replayId: e.replayId, ...(e.uuid ? { EventUuid: e.uuid } : {}) },
        },
      };
    });
  }

  /** A connect reply with the advice a test planned: unsuccessful (and the session gone) with `error`. */
  function advisedConnect(
    message: Record<string, unknown>,
    advice: Extract<InlineFault, { kind: "advice" }>,
  ): Record<string, unknown> {
    const given = { reconnect: advice.reconnect, interval: advice.interval ?? 0, timeout: pollMs };
    if (advice.error === undefined)
      return { channel: "/meta/connect", id: message.id, successful: true, advice: given };
    if (advice.reconnect === "handshake") bayeuxClients.delete(String(message.clientId));
    return {
      channel: "/meta/connect",
      id: message.id,
      successful: false,
      error: advice.error,
      advice: given,
    };
  }

  async function cometd(req: Request, fault?: InlineFault): Promise<Response> {
    if (fake.rejectStreamRequests > 0) {
      fake.rejectStreamRequests--;
      return sessionExpired();
    }
    if (!authorised(req)) return sessionExpired();
    const messages = (await req.json()) as Record<string, unknown>[];
    const replies: unknown[] = [];
    const headers: Record<string, string> = {};
    for (const message of messages) {
      switch (message.channel) {
        case "/meta/handshake": {
          fake.hits.handshake++;
          const clientId = `client-${++clientSeq}`;
          const cookie = randomUUID();
          bayeuxClients.set(clientId, { cursors: new Map(), cookie });
          headers["set-cookie"] = `BAYEUX_BROWSER=${cookie}; Path=/; HttpOnly`;
          replies.push({
            channel: "/meta/handshake",
            id: message.id,
            successful: true,
            clientId,
            version: "1.0",
            supportedConnectionTypes: ["long-polling"],
            advice: { timeout: pollMs, interval: 0, reconnect: "retry" },
            ext: { replay: true },
          });
          break;
        }
        case "/meta/subscribe": {
          fake.hits.subscribe++;
          const client = clientOf(req, message);
          if (!client) {
            replies.push(unknownClient(message));
            break;
          }
          const channel = String(message.subscription);
          const replay = (message.ext as { replay?: Record<string, number> } | undefined)?.replay?.[channel];
          const replayId = typeof replay === "number" ? replay : -1;
          fake.subscriptions.push({ channel, replayId });
          if (replayId >= 0 && replayId < fake.retainFrom - 1) {
            replies.push({
              channel: "/meta/subscribe",
              id: message.id,
              subscription: channel,
              successful: false,
              error: `400::The replayId {${replayId}} you provided was invalid.  Please provide a valid ID, -2 to replay all events, or -1 to replay only new events.`,
            });
            break;
          }
          client.cursors.set(
            channel,
            replayId === -1 ? seq : replayId === -2 ? fake.retainFrom - 1 : replayId,
          );
          replies.push({
            channel: "/meta/subscribe",
            id: message.id,
            subscription: channel,
            successful: true,
            clientId: message.clientId,
          });
          break;
        }
        case "/meta/connect": {
          fake.hits.connect++;
          const client = clientOf(req, message);
          if (!client) {
            replies.push(unknownClient(message));
            break;
          }
          if (fault?.kind === "advice" && fault.error !== undefined) {
            replies.push(advisedConnect(message, fault));
            break;
          }
          if (pendingFor(client).length === 0) {
            const outcome = await new Promise<"event" | "drop" | "timeout">((resolve) => {
              const waiter: Waiter = {
                resolve: (o) => {
                  waiters.delete(waiter);
                  clearTimeout(timer);
                  resolve(o);
                },
              };
              const timer = setTimeout(() => waiter.resolve("timeout"), pollMs);
              waiters.add(waiter);
            });
            if (outcome === "drop") return new Response("upstream connection reset", { status: 503 });
            if (!bayeuxClients.has(String(message.clientId))) {
              replies.push(unknownClient(message));
              break;
            }
          }
          const delivered = deliver(client, pendingFor(client));
          // A planned cut: the session has taken its events, and the connection drops with them.
          if (fault?.kind === "cut") return resetConnection();
          replies.push(...delivered);
          replies.push(
            fault?.kind === "advice"
              ? advisedConnect(message, fault)
              : {
                  channel: "/meta/connect",
                  id: message.id,
                  successful: true,
                  advice: { reconnect: "retry", interval: 0, timeout: pollMs },
                },
          );
          break;
        }
        case "/meta/disconnect":
          bayeuxClients.delete(String(message.clientId));
          replies.push({ channel: "/meta/disconnect", id: message.id, successful: true });
          break;
        default:
          replies.push({
            channel: message.channel,
            id: message.id,
            successful: false,
            error: "400::unknown channel",
          });
      }
    }
    return json(replies, 200, headers);
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    fetch(req) {
      const url = new URL(req.url);
      return fake.faults.serve(url.pathname, (fault) => route(req, url, fault), req.signal);
    },
  });
  function route(req: Request, url: URL, fault?: InlineFault): Response | Promise<Response> {
    if (url.pathname === "/services/oauth2/token" && req.method === "POST") return token(req);
    if (url.pathname === "/stream" && req.method === "GET") return stream(req, fault);
    if (
      /^\/cometd\/\d+\.\d(\/(handshake|subscribe|connect|disconnect))?$/.test(url.pathname) &&
      req.method === "POST"
    ) {
      return cometd(req, fault);
    }
    return new Response("not found", { status: 404 });
  }

  fake.url = `http://127.0.0.1:${server.port}`;
  return Object.assign(fake, {
    tokenUrl: `${fake.url}/services/oauth2/token`,
    streamUrl: `${fake.url}/stream`,
  });
}

export type FakeCrmPlatform = Awaited<ReturnType<typeof startFakeCrmPlatform>>;

/**
 * The connector variables (names without their `_<tenant id>` suffix) that point a tenant's CRM
 * connector at this fake: streamed over SSE, or over Bayeux when no stream URL is given.
 */
export function crmConnectorSecrets(
  fake: FakeCrmPlatform,
  keys: { privateKeyBase64: string },
  transport: "sse" | "bayeux" = "sse",
): Record<string, string> {
  return {
    CRM_CLIENT_ID: fake.clientId,
    CRM_PRIVATE_KEY: keys.privateKeyBase64,
    CRM_USERNAME: fake.username,
    CRM_INSTANCE_URL: fake.url,
    ...(transport === "sse" ? { CRM_STREAM_URL: fake.streamUrl } : {}),
  };
}

/** A connected app's RSA key pair: the private key as CRM_PRIVATE_KEY wants it (base64 of the PEM). */
export function crmKeyPair(): { privateKeyPem: string; privateKeyBase64: string; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  return {
    privateKeyPem: privateKey,
    privateKeyBase64: Buffer.from(privateKey).toString("base64"),
    publicKeyPem: publicKey,
  };
}
