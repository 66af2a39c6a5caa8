import type { StoredEntry } from "../../../src/memory/temporal.ts";
import type { Entry, EntryDraft } from "../../../src/models/entry.ts";
import { subjectOf } from "../../../src/models/scope.ts";
import { MAX_SIMILAR, SIMILAR_THRESHOLD, type SimilarEntry } from "../../../src/models/similar.ts";
import type { Hit } from "../../../src/search/hit.ts";
import { type RarityIndex, rareWordsQuery } from "../../../src/search/lexical/rare-words.ts";
import { termSet, termSetCosine } from "../../../src/search/lexical/term-set.ts";

/** What near-duplicate detection reads of the tenant: its entries and its two indexes. */
export interface SimilarContext {
  get(id: string): StoredEntry | undefined;
  lexical(): RarityIndex & { search(query: string, k: number): Hit[] };
  vectors: {
    search(query: Float32Array, k: number): Hit[];
    scorer(query: Float32Array): (id: string) => number | undefined;
  };
}

/**
 * Candidates asked of each index, unfiltered (near-copies are at the top; a filter inside the
 * search would decode entries for every contender); the similarity then decides.
 */
const CANDIDATES = 10;

/** Typed fields holding text: compared with the content, as words. */
const TEXT_FIELDS = [
  "rationale",
  "chosen",
  "options",
  "steps",
  "stage",
  "subject",
  "predicate",
  "object",
] as const;
/**
 * Typed fields holding values: two entries differing in one the draft sets are not near-duplicates
 * whatever their words ("Deal won" for another decision, the same incident at another severity).
 */
const VALUE_FIELDS = ["decision_id", "result", "amount", "currency", "severity", "status"] as const;

/**
 * Live entries of the draft's category that are near-duplicates of it, most similar first, at most
 * MAX_SIMILAR, each at least SIMILAR_THRESHOLD similar. Live: neither retracted nor superseded or
 * corrected (whatever their valid time: restating a past fact is repeating it too).
 *
 * The similarity is the cosine of the two texts' term sets (term-set.ts: content and typed text
 * fields, analysed as BM25 analyses a query); with `vector` (a write carrying a semantic
 * embedding) it is the higher of that and the vectors' cosine. Candidates are the best BM25
 * matches of the text's rarest words (rare-words.ts), plus its nearest vectors. Entries the draft
 * names (`supersedes`, `corrects`, an outcome's decision) are related on purpose, never duplicates.
 */
export function nearDuplicates(
  ctx: SimilarContext,
  draft: EntryDraft,
  vector?: Float32Array,
): SimilarEntry[] {
  const text = textOf(draft);
  const named = new Set([draft.supersedes, draft.corrects, (draft as { decision_id?: string }).decision_id]);
  const accept = (id: string) => {
    const entry = ctx.get(id)?.entry;
    return entry !== undefined && !named.has(id) && comparable(draft, entry);
  };
  const lexical = ctx.lexical();
  const hits = lexical.search(rareWordsQuery(lexical, text), CANDIDATES);
  if (vector) hits.push(...ctx.vectors.search(vector, CANDIDATES));
  const candidates = new Set(hits.map((h) => h.id).filter(accept));
  const cosine = vector ? ctx.vectors.scorer(vector) : undefined;
  const terms = termSet(text);
  const similar: SimilarEntry[] = [];
  for (const id of candidates) {
    const lexical = termSetCosine(terms, storedTerms(ctx.get(id)!.entry));
    const score = round(Math.min(1, Math.max(lexical, cosine?.(id) ?? 0)));
    if (score >= SIMILAR_THRESHOLD) similar.push({ id, score });
  }
  return similar.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1)).slice(0, MAX_SIMILAR);
}

/**
 * Term sets of stored entries, keyed by the entry object: lmdb-js's read cache and the staging area
 * hand out the same object for an entry until it changes, and a changed entry is a new object, so a
 * hit is always the entry's current text. The analysis was the near-duplicate check's main cost.
 */
const termSets = new WeakMap<Entry, ReadonlySet<string>>();

function storedTerms(entry: Entry): ReadonlySet<string> {
  let terms = termSets.get(entry);
  if (!terms) {
    terms = termSet(textOf(entry));
    termSets.set(entry, terms);
  }
  return terms;
}

/**
 * Same category, the same subject (another user's fact is not a repeat of this one, and must never be
 * answered in its place), live, and no value field of the draft set otherwise.
 */
function comparable(draft: EntryDraft, entry: Entry): boolean {
  if (entry.category !== draft.category || entry.expired_at !== null || entry.invalidated_at !== null)
    return false;
  if (subjectOf(draft) !== subjectOf(entry)) return false;
  const fields = draft as Record<string, unknown>;
  const stored = entry as Record<string, unknown>;
  return VALUE_FIELDS.every((f) => fields[f] === undefined || fields[f] === stored[f]);
}

/** The words two entries are compared on: the content, then the typed text fields. */
function textOf(entry: EntryDraft | Entry): string {
  const fields = entry as Record<string, unknown>;
  const parts = [entry.content];
  for (const f of TEXT_FIELDS) {
    // Only a relationship's `subject` is text (its triple's); another entry's is its scope's id.
    if (f === "subject" && entry.category !== "relationship") continue;
    const value = fields[f];
    if (typeof value === "string") parts.push(value);
    else if (Array.isArray(value)) parts.push(...value.filter((v): v is string => typeof v === "string"));
  }
  return parts.join("\n");
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;
