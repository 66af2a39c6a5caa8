/**
 * A small client of the mail API used to expand push notifications (SOURCES.md, `mail`):
 * refresh-token exchange with a cached access token, history paging, message metadata, watch.
 * The mail ingest command (src/mail-ingest/) reads through it too: labels, thread listing by
 * label or search expression, whole threads. Those reads are GETs only.
 * Errors carry the HTTP status and what was attempted, never a token or a client secret.
 */
import { retryAfterOf } from "../../connectors/retry-after.ts";
import type { Clock } from "../../runtime/clock.ts";

// ── the mail API's shapes (only what we read) ──────────────────────────────────────────────

export interface MessageRef {
  id: string;
  threadId: string;
  labelIds?: string[];
}

export interface HistoryRecord {
  id: string;
  messages?: MessageRef[];
  messagesAdded?: { message: MessageRef }[];
  messagesDeleted?: { message: MessageRef }[];
  labelsAdded?: { message: MessageRef; labelIds: string[] }[];
  labelsRemoved?: { message: MessageRef; labelIds: string[] }[];
}

export interface MessageHeader {
  name: string;
  value: string;
}

export interface MessageMeta {
  id: string;
  threadId: string;
  labelIds?: string[];
  snippet?: string;
  historyId?: string;
  /** Epoch ms as a decimal string. */
  internalDate?: string;
  sizeEstimate?: number;
  payload?: { headers?: MessageHeader[] };
}

/** One node of a message's MIME tree as the API gives it (`format=full`); bodies are base64url. */
export interface MessagePart {
  partId?: string;
  mimeType?: string;
  filename?: string;
  headers?: MessageHeader[];
  body?: { size?: number; data?: string; attachmentId?: string };
  parts?: MessagePart[];
}

/** A message read with `format=full`: the metadata plus the whole MIME tree. */
export interface MailMessage extends MessageMeta {
  payload?: MessagePart;
}

export interface MailThread {
  id: string;
  historyId?: string;
  messages?: MailMessage[];
}

export interface ThreadRef {
  id: string;
  snippet?: string;
  historyId?: string;
}

export interface ThreadPage {
  threads: ThreadRef[];
  nextPageToken?: string;
}

/** Which threads to list: a search expression (`q`) and/or label ids, both as the API takes them. */
export interface ThreadQuery {
  q?: string;
  labelIds?: string[];
}

export interface MailLabel {
  id: string;
  name: string;
  type?: string;
}

export interface HistoryPage {
  history: HistoryRecord[];
  /** The mailbox's current history id: the new high-water mark once every page is read. */
  historyId: string;
}

export interface WatchResult {
  historyId: string;
  /** Epoch ms. */
  expiration: number;
}

export interface MailApiOptions {
  tokenUrl: string;
  apiBaseUrl: string;
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  fetch?: typeof fetch;
  clock: Clock;
  /**
   * Sent with the refresh-token exchange when set, to narrow the access token to this scope
   * (RFC 6749 §6). The connector sends none; the ingest command sends MAIL_READONLY_SCOPE.
   */
  scope?: string;
}

/** The only scope the ingest command ever asks for: it reads, and cannot change, the mailbox. */
export const MAIL_READONLY_SCOPE = "https://www.googleapis.com/auth/gmail.readonly";

export class MailApiError extends Error {
  constructor(
    message: string,
    /** HTTP status of the failing response; 0 when no response arrived. */
    readonly status: number,
    /** The API's `Retry-After` on a 429 or 503: how long to wait before asking again. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = "MailApiError";
  }
}

/** Renew this long before the access token expires, so a request never races its expiry. */
const EXPIRY_MARGIN_MS = 60_000;
/** A runaway pager (a server repeating a page token) must end. */
const MAX_PAGES = 1000;

interface AccessToken {
  value: string;
  expiresAt: number;
}

export class MailApiClient {
  private readonly fetchImpl: typeof fetch;
  private token: AccessToken | undefined;
  private pendingToken: Promise<AccessToken> | undefined;

  constructor(private readonly options: MailApiOptions) {
    this.fetchImpl = options.fetch ?? fetch;
  }

  /** Every history record after `startHistoryId`, all pages, with the mailbox's current history id. */
  async listHistory(email: string, startHistoryId: string): Promise<HistoryPage> {
    const history: HistoryRecord[] = [];
    let pageToken: string | undefined;
    let historyId = startHistoryId;
    for (let page = 0; page < MAX_PAGES; page++) {
      const query = new URLSearchParams({ startHistoryId });
      if (pageToken) query.set("pageToken", pageToken);
      const body = await this.getJson(`${this.userPath(email)}/history?${query}`, "list history");
      if (Array.isArray(body.history)) history.push(...(body.history as HistoryRecord[]));
      if (typeof body.historyId === "string" || typeof body.historyId === "number")
        historyId = String(body.historyId);
      pageToken =
        typeof body.nextPageToken === "string" && body.nextPageToken ? body.nextPageToken : undefined;
      if (!pageToken) return { history, historyId };
    }
    throw new MailApiError(`list history: more than ${MAX_PAGES} pages`, 0);
  }

  /** A message's metadata (headers, snippet, labels); undefined when it no longer exists (404). */
  async getMessage(email: string, id: string): Promise<MessageMeta | undefined> {
    try {
      const path = `${this.userPath(email)}/messages/${encodeURIComponent(id)}?format=metadata`;
      return (await this.getJson(path, "get message")) as unknown as MessageMeta;
    } catch (err) {
      // Deleted between the history listing and this call: routine, not a failure.
      if (err instanceof MailApiError && err.status === 404) return undefined;
      throw err;
    }
  }

  /** The mailbox's labels (system and user), to turn a label name into the id the API filters on. */
  async listLabels(email: string): Promise<MailLabel[]> {
    const body = await this.getJson(`${this.userPath(email)}/labels`, "list labels");
    const labels = Array.isArray(body.labels) ? (body.labels as MailLabel[]) : [];
    return labels.filter((l) => typeof l?.id === "string" && typeof l.name === "string");
  }

  /** One page of the threads matching `query`; `pageToken` is the previous page's `nextPageToken`. */
  async listThreadsPage(email: string, query: ThreadQuery, pageToken?: string): Promise<ThreadPage> {
    const params = new URLSearchParams();
    if (query.q) params.set("q", query.q);
    for (const id of query.labelIds ?? []) params.append("labelIds", id);
    if (pageToken) params.set("pageToken", pageToken);
    const body = await this.getJson(`${this.userPath(email)}/threads?${params}`, "list threads");
    // Like history, `threads` is absent when nothing matches.
    const threads = Array.isArray(body.threads)
      ? (body.threads as ThreadRef[]).filter((t) => typeof t?.id === "string")
      : [];
    const next =
      typeof body.nextPageToken === "string" && body.nextPageToken ? body.nextPageToken : undefined;
    return next ? { threads, nextPageToken: next } : { threads };
  }

  /** Every thread matching `query`, all pages, in the API's order. */
  async listThreads(email: string, query: ThreadQuery): Promise<ThreadRef[]> {
    const threads: ThreadRef[] = [];
    let pageToken: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.listThreadsPage(email, query, pageToken);
      threads.push(...result.threads);
      pageToken = result.nextPageToken;
      if (!pageToken) return threads;
    }
    throw new MailApiError(`list threads: more than ${MAX_PAGES} pages`, 0);
  }

  /**
   * A whole thread with every message's MIME tree (`format=full`). Attachment bodies are not in
   * it (only their ids), and are never fetched. Undefined when the thread is gone (404).
   */
  async getThread(email: string, id: string): Promise<MailThread | undefined> {
    try {
      const path = `${this.userPath(email)}/threads/${encodeURIComponent(id)}?format=full`;
      return (await this.getJson(path, "get thread")) as unknown as MailThread;
    } catch (err) {
      if (err instanceof MailApiError && err.status === 404) return undefined;
      throw err;
    }
  }

  /** Starts (or renews) the mailbox watch publishing to `topicName`. */
  async watch(email: string, topicName: string, labelIds?: string[]): Promise<WatchResult> {
    const request = { topicName, ...(labelIds ? { labelIds, labelFilterBehavior: "include" } : {}) };
    const body = await this.requestJson(
      "POST",
      `${this.userPath(email)}/watch`,
      "watch",
      JSON.stringify(request),
    );
    const expiration = Number(body.expiration);
    if (body.historyId === undefined || !Number.isFinite(expiration)) {
      throw new MailApiError("watch: response lacks historyId or expiration", 502);
    }
    return { historyId: String(body.historyId), expiration };
  }

  private userPath(email: string): string {
    return `${this.options.apiBaseUrl.replace(/\/+$/, "")}/gmail/v1/users/${encodeURIComponent(email)}`;
  }

  private getJson(url: string, what: string): Promise<Record<string, unknown>> {
    return this.requestJson("GET", url, what);
  }

  /** One API call; a 401 means the cached token was revoked early, so it is renewed once. */
  private async requestJson(
    method: string,
    url: string,
    what: string,
    body?: string,
  ): Promise<Record<string, unknown>> {
    let response = await this.send(method, url, what, body, await this.accessToken());
    if (response.status === 401) {
      this.token = undefined;
      response = await this.send(method, url, what, body, await this.accessToken());
    }
    if (!response.ok)
      throw new MailApiError(
        `${what}: mail API answered ${response.status}`,
        response.status,
        retryAfterOf(response, this.options.clock.now()),
      );
    return readJsonObject(response, what);
  }

  private async send(
    method: string,
    url: string,
    what: string,
    body: string | undefined,
    token: string,
  ): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    try {
      return await this.fetchImpl(url, { method, headers, body });
    } catch {
      throw new MailApiError(`${what}: mail API unreachable`, 0);
    }
  }

  /** The cached access token, or a fresh one; concurrent callers share one exchange. */
  private async accessToken(): Promise<string> {
    const now = this.options.clock.now();
    if (this.token && now < this.token.expiresAt - EXPIRY_MARGIN_MS) return this.token.value;
    this.pendingToken ??= this.exchange().finally(() => {
      this.pendingToken = undefined;
    });
    this.token = await this.pendingToken;
    return this.token.value;
  }

  private async exchange(): Promise<AccessToken> {
    const form = new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: this.options.refreshToken,
      client_id: this.options.clientId,
      client_secret: this.options.clientSecret,
    });
    if (this.options.scope) form.set("scope", this.options.scope);
    let response: Response;
    try {
      response = await this.fetchImpl(this.options.tokenUrl, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: form.toString(),
      });
    } catch {
      throw new MailApiError("token exchange: token endpoint unreachable", 0);
    }
    if (!response.ok)
      throw new MailApiError(
        `token exchange: answered ${response.status}${await oauthError(response)}`,
        response.status,
        retryAfterOf(response, this.options.clock.now()),
      );
    const body = await readJsonObject(response, "token exchange");
    if (typeof body.access_token !== "string" || !body.access_token) {
      throw new MailApiError("token exchange: response lacks access_token", 502);
    }
    const lifetimeS = typeof body.expires_in === "number" && body.expires_in > 0 ? body.expires_in : 3600;
    return { value: body.access_token, expiresAt: this.options.clock.now() + lifetimeS * 1000 };
  }
}

/** The OAuth `error` code (e.g. invalid_grant) is safe to repeat; its description may not be. */
async function oauthError(response: Response): Promise<string> {
  try {
    const body: unknown = await response.json();
    const code = (body as { error?: unknown })?.error;
    return typeof code === "string" && /^[a-z_]{1,64}$/.test(code) ? ` (${code})` : "";
  } catch {
    return "";
  }
}

async function readJsonObject(response: Response, what: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await response.text();
  } catch {
    // The connection went in the middle of the answer: as if it never came (status 0, passing).
    throw new MailApiError(`${what}: connection lost mid-answer`, 0);
  }
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === "object" && body !== null && !Array.isArray(body))
      return body as Record<string, unknown>;
  } catch {}
  throw new MailApiError(`${what}: response is not a JSON object`, 502);
}
