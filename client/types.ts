/**
 * The types the client's helpers speak, read off the generated description of the API
 * (openapi-types.ts) so they follow the document: what a route takes (`BodyOf`, `QueryOf`) and
 * what it answers on success (`OkOf`), per category where the document narrows per category.
 */
import type { components, paths } from "./openapi-types.ts";

/** An RFC 9457 problem document: every error the service answers. */
export type Problem = components["schemas"]["Problem"];

/** What every call answers: the success body, or the problem document; the raw response in both. */
export type Result<T> =
  | { data: T; error?: undefined; response: Response }
  | { data?: undefined; error: Problem; response: Response };

/** A memory category, as the API names it in bodies (its path names the plural). */
export type Category = "fact" | "decision" | "exception" | "workflow" | "relationship" | "outcome";

/** Each category's plural, the path segment of its routes (`/memory/facts`). */
export const PLURALS = {
  fact: "facts",
  decision: "decisions",
  exception: "exceptions",
  workflow: "workflows",
  relationship: "relationships",
  outcome: "outcomes",
} as const satisfies Record<Category, string>;

/** `/memory/facts` for `fact`, and so on. */
export type CollectionPath<C extends Category> = `/memory/${(typeof PLURALS)[C]}`;
type ItemPath<C extends Category> = `${CollectionPath<C>}/{sha8}`;
type BatchPath<C extends Category> = `${CollectionPath<C>}/batch`;
type HistoryPath<C extends Category> = `${ItemPath<C>}/history`;

type OkStatus = 200 | 201 | 202;
type JsonOf<R> = R extends { content: { "application/json": infer T } } ? T : never;

/** The JSON body an operation answers with a 2xx (a union when 200 and 201 differ). */
export type OkOf<Op> = Op extends { responses: infer R } ? JsonOf<R[keyof R & OkStatus]> : never;
/** The JSON body an operation takes. */
export type BodyOf<Op> = Op extends { requestBody?: { content: { "application/json": infer B } } }
  ? B
  : never;
/** The query parameters an operation takes. */
export type QueryOf<Op> = Op extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

type Post<P> = P extends keyof paths ? paths[P]["post"] : never;
type Get<P> = P extends keyof paths ? paths[P]["get"] : never;
type Delete<P> = P extends keyof paths ? paths[P]["delete"] : never;

/** What a write of category `C` takes: `FactInput` for `fact`, and so on. */
export type InputOf<C extends Category> = BodyOf<Post<CollectionPath<C>>>;
/** What a write of category `C` answers: the entry of that category, with `similar` when it has near-duplicates. */
export type WrittenOf<C extends Category> = OkOf<Post<CollectionPath<C>>>;
/** An entry of category `C` as read back. */
export type EntryOf<C extends Category> = OkOf<Get<ItemPath<C>>>;
/** A page of entries of category `C`. */
export type PageOf<C extends Category> = OkOf<Get<CollectionPath<C>>>;
/** The query of a list of category `C` (limit, cursor, tag, valid_at, as_of, include). */
export type ListQueryOf<C extends Category> = QueryOf<Get<CollectionPath<C>>>;
/** The answer of a batch write of category `C`. */
export type BatchReplyOf<C extends Category> = OkOf<Post<BatchPath<C>>>;
/** An entry's history. */
export type HistoryOf<C extends Category> = OkOf<Get<HistoryPath<C>>>;
/** The answer of a retraction of an entry of category `C`. */
export type RetractedOf<C extends Category> = OkOf<Delete<ItemPath<C>>>;

/** What `GET /memory/entities/{name}` answers, and its query (valid_at, as_of, limit). */
export type EntityAnswer = components["schemas"]["EntityAnswer"];
export type EntityQuery = QueryOf<Get<"/memory/entities/{name}">>;
export type SearchRequest = components["schemas"]["SearchRequest"];
export type SearchResults = components["schemas"]["SearchResults"];
/** `POST /memory/context`: its body, and the pack it answers. */
export type ContextRequest = components["schemas"]["ContextRequest"];
export type ContextPack = components["schemas"]["ContextPack"];
