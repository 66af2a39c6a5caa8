import { type Static, Type } from "@sinclair/typebox";
import type { Category } from "./category.ts";
import { QueryObject, Sha8, StrictObject } from "./common.ts";
import { EntryView, entryViewOf, schemaPrefix } from "./entry.ts";
import { MERGE_THRESHOLD, REVIEW_THRESHOLD } from "./merge.ts";
import { named } from "./schema-name.ts";

/**
 * From this similarity a live entry of the same category is listed in a write's `similar`
 * (docs/embedding-and-search.md, "Near-duplicates on write", says how it is measured).
 */
export const SIMILAR_THRESHOLD = 0.8;
/** From this similarity `?dedupe=similar` answers the existing entry instead of writing. */
export const DEDUPE_THRESHOLD = 0.9;
/** At most this many entries are listed, most similar first. */
export const MAX_SIMILAR = 5;

export const SimilarEntry = named(
  "SimilarEntry",
  StrictObject({
    id: Sha8,
    score: Type.Number({
      minimum: 0,
      maximum: 1,
      description: "Similarity to the written content, in [0, 1]",
    }),
  }),
);
export type SimilarEntry = Static<typeof SimilarEntry>;

/**
 * The answer of `POST /memory/{category}` and MCP's `memory_add`: the entry, plus `similar` when
 * live entries of its category are near-duplicates of it (the answer stays an entry: a client that
 * reads it as one only sees one more field, and only then).
 */
export const WrittenEntry = StrictObject({
  ...EntryView.properties,
  similar: Type.Optional(
    Type.Array(SimilarEntry, {
      minItems: 1,
      maxItems: MAX_SIMILAR,
      description: `Live entries of the category at least ${SIMILAR_THRESHOLD} similar to this one, most similar first; absent when none`,
    }),
  ),
  merged_into: Type.Optional(
    Sha8Like(
      'With `dedupe: "merge"`: the live entry this one was merged into (GET /memory/merges/{id} with this entry\'s id)',
    ),
  ),
  review: Type.Optional(
    Type.String({ description: 'With `dedupe: "merge"`: the review band\'s pair this write was flagged in' }),
  ),
});
export type WrittenEntry = Static<typeof WrittenEntry>;

/**
 * A single write's answer for one category (`FactWritten`, …): that category's entry, plus
 * `similar`. Documented narrower than the static type, like `entryViewOf`.
 */
export function writtenEntryOf(category: Category): typeof WrittenEntry {
  return named(
    `${schemaPrefix(category)}Written`,
    StrictObject({
      ...entryViewOf(category).properties,
      similar: WrittenEntry.properties.similar,
      merged_into: WrittenEntry.properties.merged_into,
      review: WrittenEntry.properties.review,
    }),
  ) as unknown as typeof WrittenEntry;
}

/**
 * How a write treats a near-duplicate: `similar` answers the existing entry (200) instead of
 * writing; `merge` writes and merges (actors/tenant/merges/merge-write.ts).
 */
export const DedupeMode = Type.Union(
  [
    Type.Literal("similar", {
      description: `Answer an existing live entry at least ${DEDUPE_THRESHOLD} similar (200) instead of writing a near-copy; needs the permission to read the category`,
    }),
    Type.Literal("merge", {
      description: `Write the entry and merge it into a live entry at least ${MERGE_THRESHOLD} similar (unless a figure, date, name, negation or plan-against-done differs), or flag the pair for review from ${REVIEW_THRESHOLD}; needs memory:merge on the category`,
    }),
  ],
  { description: "`similar`: answer the existing entry; `merge`: write, then merge or flag for review" },
);
export type DedupeMode = Static<typeof DedupeMode>;

/**
 * What a single write asks the tenant actor about near-duplicates (src/memory/service.ts decides:
 * nothing for a caller who may not read the category).
 */
export interface SimilarAsk {
  /** Answer a near-duplicate at DEDUPE_THRESHOLD or above instead of writing. */
  dedupe: boolean;
  /** Write, and merge into a near-duplicate or flag the pair for review (`dedupe: "merge"`). */
  merge?: boolean;
  /** Compare the write's vector too: only a semantic one (the caller's); hashing adds nothing to words. */
  byVector: boolean;
}

/** `POST /memory/{category}?dedupe=similar`. */
export const WriteQuery = QueryObject({ dedupe: Type.Optional(DedupeMode) });

/** A single write's answer as sent: the entry, with `similar` only when there are near-duplicates. */
export function writtenEntry(reply: {
  entry: Static<typeof EntryView>;
  similar?: SimilarEntry[];
  merged_into?: string;
  review?: string;
}): WrittenEntry {
  const { similar, merged_into, review } = reply;
  return {
    ...reply.entry,
    ...(similar ? { similar } : {}),
    ...(merged_into ? { merged_into } : {}),
    ...(review ? { review } : {}),
  };
}

function Sha8Like(description: string) {
  return Type.String({ pattern: "^[0-9a-f]{8}$", description });
}
