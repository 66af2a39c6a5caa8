import { type Static, Type } from "@sinclair/typebox";
import { CATEGORIES } from "./category.ts";
import { Chars } from "./chars.ts";
import { LiteralUnion, StrictObject, Timestamp } from "./common.ts";
import { EmbeddingField } from "./embedding-field.ts";
import { EntryView, StatusFilter } from "./entry.ts";
import { MinTrust } from "./origin.ts";
import { named } from "./schema-name.ts";
import { SCOPE_FILTERS } from "./scope.ts";
import { ResultExplain, SEARCH_CONTROL_FIELDS } from "./search-controls.ts";

const Tag = Chars(1, 64);

/** `POST /memory/search` (CONTRACT §6). */
export const SearchBody = named(
  "SearchRequest",
  StrictObject({
    query: Type.Optional(Chars(0, 4096)),
    embedding: Type.Optional(EmbeddingField("search")),
    categories: Type.Optional(
      Type.Array(LiteralUnion(CATEGORIES), {
        minItems: 1,
        maxItems: CATEGORIES.length,
      }),
    ),
    tags: Type.Optional(Type.Array(Tag, { maxItems: 64 })),
    tags_any: Type.Optional(Type.Array(Tag, { maxItems: 64 })),
    status: Type.Optional(StatusFilter),
    min_trust: Type.Optional(MinTrust),
    valid_at: Type.Optional(Timestamp),
    as_of: Type.Optional(Timestamp),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    ...SCOPE_FILTERS,
    ...SEARCH_CONTROL_FIELDS,
  }),
);
export type SearchBody = Static<typeof SearchBody>;

export const SearchResponse = named(
  "SearchResults",
  StrictObject({
    results: Type.Array(
      StrictObject({
        entry: EntryView,
        score: Type.Number(),
        scores: StrictObject({ vector: Type.Number(), lexical: Type.Number() }),
        explain: Type.Optional(ResultExplain),
      }),
    ),
    took_ms: Type.Number(),
    pending_vectors: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          "Present while entries of the tenant wait for the background embedder: those are found by their words only until embedded",
      }),
    ),
  }),
);
