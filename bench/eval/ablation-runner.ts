/**
 * One ablation row scored over the evaluation set, in process: per conversation a BM25 index (of
 * the row's analyzer, parameters and tag weight) and a vector index (of the row's embedder), each
 * question searched with `searchHybrid` and the row's fusion profile, as the tenant actor does.
 */
import { FIELD_WEIGHTS } from "../../actors/tenant/memory/lexical-document.ts";
import type { EmbedLane } from "../../src/embedding/embedder.ts";
import { HashEmbedder } from "../../src/embedding/hash-embedder.ts";
import { LocalEmbedder } from "../../src/embedding/local-embedder.ts";
import { sharedLocalModel } from "../../src/embedding/local-model.ts";
import { StaticEmbedder } from "../../src/embedding/static-embedder.ts";
import { TieredEmbedder } from "../../src/embedding/tiered-embedder.ts";
import type { FusionProfile } from "../../src/search/fusion/fusion-profile.ts";
import { searchHybrid } from "../../src/search/fusion/hybrid-search.ts";
import { Analyzer, type AnalyzerOptions } from "../../src/search/lexical/analyzer.ts";
import { BM25_B, BM25_K1, LexicalIndex } from "../../src/search/lexical/lexical-index.ts";
import { VectorIndex } from "../../src/search/vector/vector-index.ts";
import type { EvalConversation, EvalSet } from "./locomo.ts";
import { type QuestionScores, type Summary, scoreQuestion, summarise } from "./metrics.ts";
import { LIMIT, turnContent } from "./retriever.ts";

export interface LexicalSetup {
  analyzer: AnalyzerOptions;
  k1: number;
  b: number;
  /** The weight of the turn's tag (`session-<n>`, as the eval writes it); 0: not indexed. */
  tagWeight: number;
}

/**
 * `tiered`: the runtime's TieredEmbedder, its entries once upgraded (the background lane's
 * vectors) and its queries on the query lane (the table's), unless `queryEmbedder` says otherwise.
 */
type RowEmbedder = "hash" | "local" | "static" | "tiered";

export interface AblationRow {
  name: string;
  /** The entries' vectors (and the queries', unless `queryEmbedder` says otherwise). */
  embedder: RowEmbedder | "none";
  /** The queries' vectors, when another embedder's (`tiered`: the table's against the model's). */
  queryEmbedder?: RowEmbedder;
  lexical: LexicalSetup;
  /** A profile for searchHybrid; "lexical"/"vector": one side alone; "rrf": reciprocal rank fusion. */
  fusion: FusionProfile | "lexical" | "vector" | "rrf";
}

export const SHIPPED_LEXICAL: LexicalSetup = {
  analyzer: {},
  k1: BM25_K1,
  b: BM25_B,
  tagWeight: FIELD_WEIGHTS.tags,
};

const RRF_K = 60;
/** Candidates per side, as searchHybrid takes them for k = 10. */
const POOL = 30;
const idOf = (i: number) => i.toString(16).padStart(8, "0");

const lexicalCache = new Map<string, LexicalIndex>();
const vectorCache = new Map<string, { index: VectorIndex }>();
const queryCache = new Map<string, Map<string, Float32Array>>();
const hash = new HashEmbedder();
let table: StaticEmbedder | undefined;
let local: LocalEmbedder | undefined;
let tiered: TieredEmbedder | undefined;

/**
 * Texts as the service embeds them (`lane`: only `tiered` tells its lanes apart); the local model is
 * loaded once, on first use.
 */
function embedWith(
  embedder: RowEmbedder,
  texts: string[],
  lane: EmbedLane = "query",
): Promise<Float32Array[]> {
  if (embedder === "hash") return Promise.resolve(texts.map((t) => hash.embedSync(t)));
  table ??= new StaticEmbedder();
  if (embedder === "static") return table.embed(texts);
  local ??= new LocalEmbedder(sharedLocalModel());
  if (embedder === "local") return local.embed(texts);
  tiered ??= new TieredEmbedder(table, local);
  return tiered.embed(texts, lane);
}

function lexicalIndex(c: EvalConversation, setup: LexicalSetup): LexicalIndex {
  const key = `${c.id} ${JSON.stringify(setup)}`;
  let index = lexicalCache.get(key);
  if (!index) {
    index = new LexicalIndex({ analyzer: new Analyzer(setup.analyzer), k1: setup.k1, b: setup.b });
    for (const [i, turn] of c.turns.entries())
      index.add(idOf(i), [
        { text: turnContent(turn) },
        { text: `session-${turn.session}`, weight: setup.tagWeight },
      ]);
    lexicalCache.set(key, index);
  }
  return index;
}

/** Turns embedded in batches, questions one by one, as the service embeds writes and queries. */
async function vectorIndex(c: EvalConversation, embedder: RowEmbedder, queryEmbedder = embedder) {
  const key = `${c.id} ${embedder}`;
  let cached = vectorCache.get(key);
  if (!cached) {
    // The entries' vectors as they end up: under `tiered`, upgraded by the background lane.
    const vectors = await embedWith(embedder, c.turns.map(turnContent), "background");
    const index = VectorIndex.open({ dims: vectors[0]!.length });
    for (const [i, v] of vectors.entries()) index.add(idOf(i), v);
    cached = { index };
    vectorCache.set(key, cached);
  }
  return { index: cached.index, query: await queryVectors(c, queryEmbedder) };
}

async function queryVectors(c: EvalConversation, embedder: RowEmbedder) {
  const key = `${c.id} ${embedder}`;
  let query = queryCache.get(key);
  if (!query) {
    query = new Map<string, Float32Array>();
    for (const q of c.questions) query.set(q.question, (await embedWith(embedder, [q.question]))[0]!);
    queryCache.set(key, query);
  }
  return query;
}

function rrf(lexical: LexicalIndex, vectors: VectorIndex, text: string, vector: Float32Array): string[] {
  const score = new Map<string, number>();
  const add = (ids: string[]) => {
    for (const [r, id] of ids.entries()) score.set(id, (score.get(id) ?? 0) + 1 / (RRF_K + r + 1));
  };
  add(vectors.search(vector, POOL).map((h) => h.id));
  add(lexical.search(text, POOL).map((h) => h.id));
  return [...score].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([id]) => id);
}

async function rankedIds(c: EvalConversation, row: AblationRow, question: string): Promise<string[]> {
  const lexical = lexicalIndex(c, row.lexical);
  if (row.embedder === "none")
    return searchHybrid(
      { vectors: VectorIndex.open({ dims: 1 }), lexical: () => lexical },
      { text: question, k: LIMIT },
    ).map((h) => h.id);
  const { index, query } = await vectorIndex(c, row.embedder, row.queryEmbedder);
  const vector = query.get(question)!;
  if (row.fusion === "rrf") return rrf(lexical, index, question, vector).slice(0, LIMIT);
  const indexes = { vectors: index, lexical: () => lexical };
  const text = row.fusion === "vector" ? undefined : question;
  const profile = typeof row.fusion === "string" ? undefined : row.fusion;
  return searchHybrid(indexes, { text, vector, k: LIMIT }, { profile }).map((h) => h.id);
}

export async function scoreRow(set: EvalSet, row: AblationRow): Promise<Summary> {
  const scored: { category: string; scores: QuestionScores }[] = [];
  for (const c of set.conversations) {
    const turnOf = new Map(c.turns.map((t, i) => [idOf(i), t]));
    const sessionOf = new Map(c.turns.map((t) => [t.id, t.session]));
    for (const q of c.questions) {
      const ranked = (await rankedIds(c, row, q.question)).map((id) => turnOf.get(id)!);
      const evidenceSessions = [...new Set(q.evidence.map((id) => sessionOf.get(id)!))];
      scored.push({
        category: q.category,
        scores: scoreQuestion(
          ranked.map((t) => t.id),
          ranked.map((t) => t.session),
          q.evidence,
          evidenceSessions,
        ),
      });
    }
  }
  return summarise(scored);
}
