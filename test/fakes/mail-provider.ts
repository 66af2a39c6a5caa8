/**
 * A local fake of the mail provider (Bun.serve on 127.0.0.1, a free port): the OAuth token
 * endpoint, mailbox history, message metadata, watch, and the JWKS of the push service's
 * signing keys, with helpers to sign push tokens (and a second, unpublished key for forgeries).
 * For the ingest command it also serves labels, threads (listed by `q` and `labelIds`, paged with
 * `pageToken`, read whole with `format=full`) from `fake.mailbox`, and attachment bodies, and it
 * logs every API request (`apiRequests`) and every scope asked of the token endpoint (`tokenScopes`).
 * Network faults (error statuses with Retry-After, resets, slow answers) are planned through
 * `fake.faults` (test/fakes/fault-plan.ts), by path: `/token`, `/gmail/v1/users/{email}/history`, ...
 */
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { type Clock, systemClock } from "../../src/runtime/clock.ts";
import type { HistoryRecord, MailLabel, MailMessage, MessageMeta } from "../../src/sources/mail/api.ts";
import { FaultPlan } from "./fault-plan.ts";
import { threadMatches } from "./mail-search.ts";

type PrivateKey = CryptoKey;

interface SigningKey {
  kid: string;
  privateKey: PrivateKey;
  publicJwk: Record<string, unknown>;
}

export interface PushTokenOptions {
  /** Claims to add or override (iss, aud, email, email_verified, iat, exp, ...). */
  claims?: Record<string, unknown>;
  /** "other" signs with a key the JWKS never publishes. */
  key?: "current" | "other";
  /** Override the header kid (e.g. to claim a published kid while signing with another key). */
  kid?: string;
  /** Epoch ms the token is issued at; default the fake's clock. */
  issuedAtMs?: number;
}

export interface FakeMailProviderOptions {
  now?: () => number;
  /** The test's clock: faults' delays are held on it, requests are logged with its time. */
  clock?: Clock;
  audience?: string;
  serviceAccount?: string;
  /** History records per page. */
  pageSize?: number;
  /** Threads per page of a thread listing (the real API's default is 100). */
  threadPageSize?: number;
}

export interface ApiRequest {
  method: string;
  /** The path after `/gmail/v1/users/{email}/`, e.g. `threads/t1`, `messages/m1/attachments/a1`. */
  path: string;
  query: URLSearchParams;
}

export interface FakeMailProvider {
  url: string;
  tokenUrl: string;
  apiBaseUrl: string;
  jwksUrl: string;
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  audience: string;
  serviceAccount: string;
  /** Everything after the oldest available history id; tests push records here. */
  history: HistoryRecord[];
  /** The mailbox's current history id (answered by history and watch). */
  historyId: string;
  /** History ids older than this are gone (the API answers 404). */
  oldestHistoryId: number;
  messages: Map<string, MessageMeta>;
  watches: { email: string; topicName: string }[];
  hits: { token: number; history: number; messages: number; watch: number; jwks: number };
  /** The mailbox's labels (system ones by default; tests add user labels). */
  labels: MailLabel[];
  /** Messages with whole MIME trees, read by the thread endpoints (grouped by `threadId`). */
  mailbox: MailMessage[];
  /** Every request to the mail API (not the token endpoint), in arrival order. */
  apiRequests: ApiRequest[];
  /** The `scope` form field of each token request (null when none was sent). */
  tokenScopes: (string | null)[];
  /** Lifetime of issued access tokens in seconds. */
  tokenLifetimeS: number;
  /** Faults planned for the next requests, and what was injected. */
  faults: FaultPlan;
  /** Makes every issued access token invalid (the API then answers 401). */
  revokeAccessTokens(): void;
  signPushToken(options?: PushTokenOptions): Promise<string>;
  /** Publishes a new current signing key (new kid) and stops publishing the old one. */
  rotateKey(): Promise<void>;
  pushBody(data: { emailAddress: string; historyId: string | number }, messageId?: string): Uint8Array;
  stop(): void;
}

async function signingKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair("RS256");
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" } };
}

const USER_PATH = /^\/gmail\/v1\/users\/([^/]+)\/(.+)$/;

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

function apiError(status: number, message: string): Response {
  return json({ error: { code: status, message, status: message.toUpperCase().replace(/ /g, "_") } }, status);
}

export async function startFakeMailProvider(
  options: FakeMailProviderOptions = {},
): Promise<FakeMailProvider> {
  const now = options.now ?? (options.clock ? () => options.clock!.now() : () => Date.now());
  const pageSize = options.pageSize ?? 2;
  let keySeq = 1;
  let current = await signingKey(`key-${keySeq}`);
  const other = await signingKey("key-other");
  const issued = new Set<string>();
  let tokenSeq = 0;

  const fake = {
    clientId: "client-123.apps.example.com",
    clientSecret: "cs-very-secret-value",
    refreshToken: "rt-very-secret-refresh",
    audience: options.audience ?? "https://memory.example.com/webhooks/mail",
    serviceAccount: options.serviceAccount ?? "push@project.iam.gserviceaccount.com",
    history: [] as HistoryRecord[],
    historyId: "1000",
    oldestHistoryId: 0,
    messages: new Map<string, MessageMeta>(),
    watches: [] as { email: string; topicName: string }[],
    hits: { token: 0, history: 0, messages: 0, watch: 0, jwks: 0 },
    labels: [
      { id: "INBOX", name: "INBOX", type: "system" },
      { id: "SENT", name: "SENT", type: "system" },
      { id: "IMPORTANT", name: "IMPORTANT", type: "system" },
    ] as MailLabel[],
    mailbox: [] as MailMessage[],
    apiRequests: [] as ApiRequest[],
    tokenScopes: [] as (string | null)[],
    tokenLifetimeS: 3600,
    faults: new FaultPlan(options.clock ?? systemClock),
  };

  async function token(req: Request): Promise<Response> {
    fake.hits.token++;
    const form = new URLSearchParams(await req.text());
    fake.tokenScopes.push(form.get("scope"));
    const valid =
      form.get("grant_type") === "refresh_token" &&
      form.get("client_id") === fake.clientId &&
      form.get("client_secret") === fake.clientSecret &&
      form.get("refresh_token") === fake.refreshToken;
    if (!valid)
      return json({ error: "invalid_grant", error_description: "Token has been expired or revoked." }, 400);
    const accessToken = `at-${++tokenSeq}-secret`;
    issued.add(accessToken);
    return json({
      access_token: accessToken,
      expires_in: fake.tokenLifetimeS,
      token_type: "Bearer",
      scope: form.get("scope") ?? "gmail.readonly",
    });
  }

  function authorised(req: Request): boolean {
    const match = /^Bearer (.+)$/.exec(req.headers.get("authorization") ?? "");
    return match !== null && issued.has(match[1]!);
  }

  function history(url: URL): Response {
    fake.hits.history++;
    const start = Number(url.searchParams.get("startHistoryId"));
    if (!Number.isFinite(start) || start < fake.oldestHistoryId)
      return apiError(404, "Requested entity was not found.");
    const after = fake.history.filter((r) => Number(r.id) > start);
    const offset = Number(url.searchParams.get("pageToken") ?? "0");
    const page = after.slice(offset, offset + pageSize);
    const next = offset + pageSize < after.length ? String(offset + pageSize) : undefined;
    // Like the real API: `history` is absent when there is nothing new.
    return json({
      ...(page.length > 0 ? { history: page } : {}),
      historyId: fake.historyId,
      ...(next ? { nextPageToken: next } : {}),
    });
  }

  function message(id: string, url: URL): Response {
    fake.hits.messages++;
    const meta = fake.messages.get(id);
    if (!meta) return apiError(404, "Requested entity was not found.");
    if (url.searchParams.get("format") !== "metadata")
      return apiError(400, "format must be metadata in this fake");
    return json(meta);
  }

  async function watch(email: string, req: Request): Promise<Response> {
    fake.hits.watch++;
    const body = (await req.json()) as { topicName?: string };
    if (!body.topicName) return apiError(400, "Invalid topicName");
    fake.watches.push({ email, topicName: body.topicName });
    return json({ historyId: fake.historyId, expiration: String(now() + 7 * 24 * 3600 * 1000) });
  }

  /** Threads as the API lists them: the most recent activity first, then by id. */
  function threadsOf(messages: MailMessage[]): Map<string, MailMessage[]> {
    const threads = new Map<string, MailMessage[]>();
    const byDate = [...messages].sort((a, b) => Number(a.internalDate) - Number(b.internalDate));
    for (const m of byDate) threads.set(m.threadId, [...(threads.get(m.threadId) ?? []), m]);
    const latest = (t: MailMessage[]) => Number(t[t.length - 1]!.internalDate);
    return new Map([...threads].sort(([ia, a], [ib, b]) => latest(b) - latest(a) || ia.localeCompare(ib)));
  }

  function listThreads(url: URL): Response {
    const q = url.searchParams.get("q") ?? "";
    const labelIds = url.searchParams.getAll("labelIds");
    const matching = [...threadsOf(fake.mailbox)].filter(([, messages]) =>
      threadMatches(messages, q, labelIds, fake.labels),
    );
    const offset = Number(url.searchParams.get("pageToken") ?? "0");
    const size = options.threadPageSize ?? 100;
    const page = matching.slice(offset, offset + size);
    const next = offset + size < matching.length ? String(offset + size) : undefined;
    return json({
      ...(page.length > 0 ? { threads: page.map(([id, m]) => ({ id, snippet: m[0]!.snippet ?? "" })) } : {}),
      resultSizeEstimate: matching.length,
      ...(next ? { nextPageToken: next } : {}),
    });
  }

  function getThread(id: string, url: URL): Response {
    const messages = threadsOf(fake.mailbox).get(id);
    if (!messages) return apiError(404, "Requested entity was not found.");
    if (url.searchParams.get("format") !== "full") return apiError(400, "format must be full in this fake");
    return json({ id, historyId: fake.historyId, messages });
  }

  function attachment(messageId: string, attachmentId: string): Response {
    const parts = [fake.mailbox.find((m) => m.id === messageId)?.payload];
    for (const part of parts) {
      if (part?.body?.attachmentId === attachmentId) return json({ size: part.body.size ?? 0, data: "" });
      parts.push(...(part?.parts ?? []));
    }
    return apiError(404, "Requested entity was not found.");
  }

  async function api(req: Request, url: URL): Promise<Response> {
    const match = USER_PATH.exec(url.pathname);
    if (!authorised(req)) return apiError(401, "Invalid Credentials");
    if (!match) return apiError(404, "Not found");
    const email = decodeURIComponent(match[1]!);
    const [kind, id, sub, subId, ...rest] = match[2]!.split("/").map(decodeURIComponent);
    const get = req.method === "GET" && rest.length === 0;
    if (kind === "history" && id === undefined && get) return history(url);
    if (kind === "watch" && id === undefined && req.method === "POST") return watch(email, req);
    if (kind === "labels" && id === undefined && get) return json({ labels: fake.labels });
    if (kind === "threads" && id === undefined && get) return listThreads(url);
    if (kind === "threads" && id && sub === undefined && get) return getThread(id, url);
    if (kind === "messages" && id && sub === undefined && get) return message(id, url);
    if (kind === "messages" && id && sub === "attachments" && subId && get) return attachment(id, subId);
    if (["history", "watch", "labels", "threads", "messages"].includes(kind!))
      return apiError(405, "Method not allowed");
    return apiError(404, "Not found");
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      // Logged before any planned fault, so a refused request is seen too.
      const api = USER_PATH.exec(url.pathname);
      if (api) fake.apiRequests.push({ method: req.method, path: api[2]!, query: url.searchParams });
      return fake.faults.serve(url.pathname, () => route(req, url), req.signal);
    },
  });
  function route(req: Request, url: URL): Response | Promise<Response> {
    if (url.pathname === "/token" && req.method === "POST") return token(req);
    if (url.pathname === "/jwks") {
      fake.hits.jwks++;
      return json({ keys: [current.publicJwk] });
    }
    if (url.pathname.startsWith("/gmail/")) return api(req, url);
    return new Response("not found", { status: 404 });
  }

  const base = `http://127.0.0.1:${server.port}`;

  return Object.assign(fake, {
    url: base,
    tokenUrl: `${base}/token`,
    apiBaseUrl: base,
    jwksUrl: `${base}/jwks`,
    revokeAccessTokens: () => issued.clear(),
    async signPushToken(opts: PushTokenOptions = {}): Promise<string> {
      const key = opts.key === "other" ? other : current;
      const iat = Math.floor((opts.issuedAtMs ?? now()) / 1000);
      const claims = {
        iss: "https://accounts.google.com",
        aud: fake.audience,
        azp: "1234567890",
        sub: "1234567890",
        email: fake.serviceAccount,
        email_verified: true,
        iat,
        exp: iat + 3600,
        ...opts.claims,
      };
      return new SignJWT(claims)
        .setProtectedHeader({ alg: "RS256", kid: opts.kid ?? key.kid, typ: "JWT" })
        .sign(key.privateKey);
    },
    async rotateKey(): Promise<void> {
      current = await signingKey(`key-${++keySeq}`);
    },
    pushBody(
      data: { emailAddress: string; historyId: string | number },
      messageId = "2070443601311540",
    ): Uint8Array {
      const body = {
        message: {
          data: Buffer.from(JSON.stringify(data)).toString("base64"),
          messageId,
          message_id: messageId,
          publishTime: "2026-11-21T09:59:58.123Z",
          attributes: {},
        },
        subscription: "projects/p/subscriptions/memory-push",
      };
      return new TextEncoder().encode(JSON.stringify(body));
    },
    stop: () => server.stop(true),
  });
}
