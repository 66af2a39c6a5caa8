/**
 * The typed client of the memory runtime's HTTP API: `import { createClient } from
 * "typed-memory-runtime/client"`. Its types are generated from the service's OpenAPI document
 * (openapi-types.ts, `bun run client:generate`); requests go through openapi-fetch.
 *
 *   const memory = createClient({ baseUrl: "http://127.0.0.1:8080", token });
 *   const { data, error } = await memory.memory.write("fact", { content: "Acme renews in March" });
 *   // data: a fact entry (FactWritten); error: the problem document (Problem)
 *
 * Besides the named helpers, `GET`, `POST`, `DELETE`, … reach every route by its path, typed too.
 */
import createFetchClient, { type Client, type Middleware } from "openapi-fetch";
import { type ConversationsApi, conversationsApi } from "./conversations.ts";
import {
  type ContextApi,
  contextApi,
  type MemoryApi,
  memoryApi,
  type SearchApi,
  searchApi,
} from "./memory.ts";
import { type MergesApi, mergesApi } from "./merges.ts";
import type { paths } from "./openapi-types.ts";
import { problemsOnly } from "./problems.ts";
import { sender } from "./send.ts";
import { type AdminApi, adminApi, type TenantsApi, tenantsApi } from "./tenants.ts";

export type { ConversationAnswer, ConversationRequest, SessionTurnsPage } from "./conversations.ts";
export type { WriteOptions } from "./memory.ts";
export type { MergeDecision, MergeRecord, MergeReview, MergeReviewPage } from "./merges.ts";
export type * from "./openapi-types.ts";
export { isProblem } from "./problems.ts";
export type {
  BatchReplyOf,
  Category,
  EntryOf,
  HistoryOf,
  InputOf,
  PageOf,
  Problem,
  Result,
  WrittenOf,
} from "./types.ts";
export type { AdminApi, ConversationsApi, MemoryApi, MergesApi, SearchApi, TenantsApi };

export interface ClientOptions {
  /** The service's address, e.g. `http://127.0.0.1:8080` (no trailing path). */
  baseUrl: string;
  /** The bearer token sent on every request; a function is asked before each one (rotation). */
  token?: string | (() => string | Promise<string>);
  /** Headers sent on every request (an `X-Request-Id`, say). */
  headers?: Record<string, string>;
  /** The fetch to use: `globalThis.fetch` by default; `runtime.app.handle` reaches an embedded runtime. */
  fetch?: (request: Request) => Promise<Response>;
}

export interface MemoryClient extends Client<paths> {
  memory: MemoryApi;
  /** Transcripts in, typed memory out (docs/conversations.md). */
  conversations: ConversationsApi;
  /** Merges of near-duplicates, un-merges and the review band (docs/memory.md). */
  merges: MergesApi;
  search: SearchApi;
  /** The best entries for a query packed into a token budget (docs/context-pack.md). */
  context: ContextApi;
  tenants: TenantsApi;
  admin: AdminApi;
}

export function createClient(options: ClientOptions): MemoryClient {
  const raw = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    headers: options.headers,
    fetch: options.fetch,
  });
  if (options.token !== undefined) raw.use(bearer(options.token));
  raw.use(problemsOnly);
  const send = sender(raw);
  return {
    ...raw,
    memory: memoryApi(send),
    conversations: conversationsApi(send),
    merges: mergesApi(send),
    search: searchApi(send),
    context: contextApi(send),
    tenants: tenantsApi(send),
    admin: adminApi(send),
  };
}

function bearer(token: NonNullable<ClientOptions["token"]>): Middleware {
  return {
    async onRequest({ request }) {
      if (request.headers.has("authorization")) return undefined;
      const value = typeof token === "function" ? await token() : token;
      request.headers.set("authorization", `Bearer ${value}`);
      return request;
    },
  };
}
