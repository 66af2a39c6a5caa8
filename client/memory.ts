/**
 * The memory helpers: write one or a batch, read, list, history, correct, supersede, retract, an
 * entity's knowledge, and search. Each takes the category as its first argument and answers that
 * category's types, as the
 * document declares them per category (`write("fact", …)` answers a fact entry).
 */
import { idempotencyHeader, type Send } from "./send.ts";
import {
  type BatchReplyOf,
  type Category,
  type ContextPack,
  type ContextRequest,
  type EntityAnswer,
  type EntityQuery,
  type EntryOf,
  type HistoryOf,
  type InputOf,
  type ListQueryOf,
  type PageOf,
  PLURALS,
  type Result,
  type RetractedOf,
  type SearchRequest,
  type SearchResults,
  type WrittenOf,
} from "./types.ts";

export interface WriteOptions {
  /** Sent as `Idempotency-Key`: a retry with the same key answers the first write (200). */
  idempotencyKey?: string;
  /** `"similar"`: answer a live entry at least 0.9 similar (200) instead of writing. */
  dedupe?: "similar";
}

export interface MemoryApi {
  /** `POST /memory/{category}`: 201 written, or 200 an identical or (with `dedupe`) similar one. */
  write<C extends Category>(
    category: C,
    entry: InputOf<C>,
    options?: WriteOptions,
  ): Promise<Result<WrittenOf<C>>>;
  /** `POST /memory/{category}/batch`: 1–1,000 entries in one transaction, all checked first. */
  writeBatch<C extends Category>(
    category: C,
    entries: InputOf<C>[],
    options?: Pick<WriteOptions, "idempotencyKey">,
  ): Promise<Result<BatchReplyOf<C>>>;
  /** A new entry that takes the place of a wrong one (`corrects`): the wrong one is retracted now. */
  correct<C extends Category>(
    category: C,
    wrongId: string,
    entry: InputOf<C>,
    options?: WriteOptions,
  ): Promise<Result<WrittenOf<C>>>;
  /** A new entry that closes an older one's validity at its own `valid_from` (`supersedes`). */
  supersede<C extends Category>(
    category: C,
    olderId: string,
    entry: InputOf<C>,
    options?: WriteOptions,
  ): Promise<Result<WrittenOf<C>>>;
  /** `GET /memory/{category}/{sha8}` (`include: "embedding"` adds the vector). */
  get<C extends Category>(
    category: C,
    id: string,
    query?: { include?: "embedding" },
  ): Promise<Result<EntryOf<C>>>;
  /** `GET /memory/{category}`: newest first, paged by `cursor`. */
  list<C extends Category>(category: C, query?: ListQueryOf<C>): Promise<Result<PageOf<C>>>;
  /** `GET /memory/{category}/{sha8}/history`: versions and events in transaction-time order. */
  history<C extends Category>(category: C, id: string): Promise<Result<HistoryOf<C>>>;
  /** `DELETE /memory/{category}/{sha8}`: known no more from now on. */
  retract<C extends Category>(category: C, id: string): Promise<Result<RetractedOf<C>>>;
  /** `GET /memory/entities/{name}`: an entity's relationships and the entries naming it, per category. */
  entity(name: string, query?: EntityQuery): Promise<Result<EntityAnswer>>;
}

const collection = (category: Category) => `/memory/${PLURALS[category]}`;

export function memoryApi(send: Send): MemoryApi {
  const write = <C extends Category>(category: C, entry: InputOf<C>, options: WriteOptions = {}) =>
    send<WrittenOf<C>>("POST", collection(category), {
      body: entry,
      params: {
        query: options.dedupe ? { dedupe: options.dedupe } : undefined,
        header: idempotencyHeader(options.idempotencyKey),
      },
    });
  return {
    write,
    writeBatch: (category, entries, options = {}) =>
      send("POST", `${collection(category)}/batch`, {
        body: { entries },
        params: { header: idempotencyHeader(options.idempotencyKey) },
      }),
    correct: (category, wrongId, entry, options) => write(category, { ...entry, corrects: wrongId }, options),
    supersede: (category, olderId, entry, options) =>
      write(category, { ...entry, supersedes: olderId }, options),
    get: (category, id, query) =>
      send("GET", `${collection(category)}/{sha8}`, { params: { path: { sha8: id }, query } }),
    list: (category, query) => send("GET", collection(category), { params: { query } }),
    history: (category, id) =>
      send("GET", `${collection(category)}/{sha8}/history`, { params: { path: { sha8: id } } }),
    retract: (category, id) =>
      send("DELETE", `${collection(category)}/{sha8}`, { params: { path: { sha8: id } } }),
    entity: (name, query) => send("GET", "/memory/entities/{name}", { params: { path: { name }, query } }),
  };
}

/** `POST /memory/search`: hybrid (vector and lexical) search over the categories the token may search. */
export type SearchApi = (request: SearchRequest) => Promise<Result<SearchResults>>;

export function searchApi(send: Send): SearchApi {
  return (request) => send("POST", "/memory/search", { body: request });
}

/** `POST /memory/context`: the best entries for a query, a prompt-ready block within `budget_tokens`. */
export type ContextApi = (request: ContextRequest) => Promise<Result<ContextPack>>;

export function contextApi(send: Send): ContextApi {
  return (request) => send("POST", "/memory/context", { body: request });
}
