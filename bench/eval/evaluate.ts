/**
 * One evaluation run: the BM25 baseline and every requested embedder over the same set, each
 * question scored the same way, with timings.
 */
import { machine, median, round } from "../stats.ts";
import { bm25Retriever } from "./bm25-retriever.ts";
import { asVariant, type Variant } from "./features.ts";
import type { EvalSet } from "./locomo.ts";
import { type QuestionScores, type Summary, scoreQuestion, summarise } from "./metrics.ts";
import type { Retriever } from "./retriever.ts";
import { startService } from "./service-retriever.ts";

export interface SystemResult {
  name: string;
  kind: "baseline" | "service";
  /** A variant of the ablation (`--ablation`): its embedder and the feature flipped. */
  embedder?: string;
  feature?: Variant["feature"];
  status: "ok" | "skipped" | "failed";
  /** Why it was skipped or failed. */
  note?: string;
  summary?: Summary;
  timings?: {
    /** Writing (service) or indexing (baseline) every conversation's turns. */
    load_s: number;
    search_s: number;
    search_ms_p50: number;
    search_ms_p95: number;
    total_s: number;
  };
}

export interface EvalReport {
  dataset: {
    name: string;
    sha256?: string;
    conversations: number;
    sessions: number;
    turns: number;
    questions: number;
    by_category: Record<string, number>;
    skipped: EvalSet["skipped"];
  };
  procedure: Record<string, string>;
  systems: SystemResult[];
  date: string;
  /** The commit the code was at (uncommitted changes of the working tree are not recorded). */
  commit: string | undefined;
  machine: ReturnType<typeof machine>;
  total_s: number;
}

const PROCEDURE = {
  write:
    "each turn a fact through POST /memory/facts/batch (≤ 1,000 a request), one tenant per conversation: content '<speaker>: <text>', valid_from the session's date plus one minute per earlier turn, tags ['session-<n>'], data {dia_id, session}",
  search: "each question through POST /memory/search {query, limit: 10}, default configuration otherwise",
  baseline:
    "BM25 (k1 1.2, b 0.75, lower-case word tokens, no stemming) over the same '<speaker>: <text>' turns",
  recall_at_k: "share of questions with any evidence turn among the first k results",
  ndcg_at_10: "binary relevance (evidence turns 1, others 0), normalised by the ideal ranking",
  session_recall_at_5:
    "share of questions with an evidence turn's session among the first 5 results' sessions",
  all_evidence_at_10: "share of questions with every evidence turn among the first 10 results",
};

/** One question's ranked answer, for `--details`: what each system returned, by turn id. */
export interface Answer {
  conversation: string;
  question: string;
  category: string;
  evidence: string[];
  ranked: string[];
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! : 0;

async function measure(retriever: Retriever, set: EvalSet, log: (line: string) => void) {
  const started = performance.now();
  let loadMs = 0;
  const latencies: number[] = [];
  const scored: { category: string; scores: QuestionScores }[] = [];
  const answers: Answer[] = [];
  for (const conversation of set.conversations) {
    const loading = performance.now();
    const search = await retriever.load(conversation);
    loadMs += performance.now() - loading;
    const sessionOf = new Map(conversation.turns.map((t) => [t.id, t.session]));
    for (const question of conversation.questions) {
      const asked = performance.now();
      const ranked = await search(question.question);
      latencies.push(performance.now() - asked);
      const evidenceSessions = [...new Set(question.evidence.map((id) => sessionOf.get(id)!))];
      answers.push({ conversation: conversation.id, ...question, ranked: ranked.map((r) => r.id) });
      scored.push({
        category: question.category,
        scores: scoreQuestion(
          ranked.map((r) => r.id),
          ranked.map((r) => r.session),
          question.evidence,
          evidenceSessions,
        ),
      });
    }
    log(
      `  ${conversation.id}: ${conversation.turns.length} turns, ${conversation.questions.length} questions`,
    );
  }
  latencies.sort((a, b) => a - b);
  return {
    answers,
    summary: summarise(scored),
    timings: {
      load_s: round(loadMs / 1000),
      search_s: round(latencies.reduce((a, b) => a + b, 0) / 1000),
      search_ms_p50: round(median(latencies)),
      search_ms_p95: round(percentile(latencies, 0.95)),
      total_s: round((performance.now() - started) / 1000),
    },
  };
}

async function runSystem(
  name: string,
  kind: SystemResult["kind"],
  start: () => Promise<{ retriever?: Retriever; refused?: string }>,
  set: EvalSet,
  log: (line: string) => void,
  variant: Pick<SystemResult, "embedder" | "feature"> = {},
): Promise<{ result: SystemResult; answers: Answer[] }> {
  log(`${name}: starting`);
  const { retriever, refused } = await start();
  if (!retriever) {
    log(`${name}: skipped (${refused})`);
    return { result: { name, kind, ...variant, status: "skipped", note: refused }, answers: [] };
  }
  try {
    const { answers, summary, timings } = await measure(retriever, set, log);
    return { result: { name, kind, ...variant, status: "ok", summary, timings }, answers };
  } catch (error) {
    const note = error instanceof Error ? error.message : String(error);
    log(`${name}: failed (${note})`);
    return { result: { name, kind, ...variant, status: "failed", note }, answers: [] };
  } finally {
    await retriever.close();
  }
}

function describe(set: EvalSet): EvalReport["dataset"] {
  const byCategory: Record<string, number> = {};
  for (const c of set.conversations)
    for (const q of c.questions) byCategory[q.category] = (byCategory[q.category] ?? 0) + 1;
  return {
    name: set.name,
    sha256: set.sha256,
    conversations: set.conversations.length,
    sessions: set.conversations.reduce((n, c) => n + c.sessions, 0),
    turns: set.conversations.reduce((n, c) => n + c.turns.length, 0),
    questions: set.conversations.reduce((n, c) => n + c.questions.length, 0),
    by_category: byCategory,
    skipped: set.skipped,
  };
}

export function headCommit(): string | undefined {
  const git = Bun.spawnSync(["git", "rev-parse", "HEAD"], { cwd: import.meta.dir, stderr: "ignore" });
  return git.success ? git.stdout.toString().trim() : undefined;
}

export interface EvalRun {
  report: EvalReport;
  /** Every system's ranked answers, by system name. */
  answers: Record<string, Answer[]>;
}

/** `systems`: embedders (their default configuration) or variants of the ablation (features.ts). */
export async function evaluate(
  set: EvalSet,
  systems: readonly (string | Variant)[],
  log: (line: string) => void = () => undefined,
): Promise<EvalRun> {
  const started = performance.now();
  const date = new Date().toISOString();
  const host = machine();
  const runs = [await runSystem("bm25", "baseline", async () => ({ retriever: bm25Retriever() }), set, log)];
  for (const variant of systems.map(asVariant)) {
    const { name, embedder, feature } = variant;
    const described = feature ? { embedder, feature } : {};
    runs.push(await runSystem(name, "service", () => startService(variant), set, log, described));
  }
  return {
    report: {
      dataset: describe(set),
      procedure: PROCEDURE,
      systems: runs.map((r) => r.result),
      date,
      commit: headCommit(),
      machine: host,
      total_s: round((performance.now() - started) / 1000),
    },
    answers: Object.fromEntries(runs.map((r) => [r.result.name, r.answers])),
  };
}
