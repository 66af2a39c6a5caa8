/**
 * The scores of one ranked answer against a question's evidence turns, and their averages. A
 * question counts as found at k when any of its evidence turns is among the first k results (the
 * reference measurement's rule); `all_evidence_at_10` asks for every one of them, which only
 * differs for questions with several evidence turns (multi-hop, some temporal).
 */

export interface QuestionScores {
  recall_at_5: number;
  recall_at_10: number;
  ndcg_at_10: number;
  session_recall_at_5: number;
  all_evidence_at_10: number;
}

export const METRICS = [
  "recall_at_5",
  "recall_at_10",
  "ndcg_at_10",
  "session_recall_at_5",
  "all_evidence_at_10",
] as const satisfies readonly (keyof QuestionScores)[];

/** 1 when any evidence id is among the first k ranked ids, else 0. */
export function recallAtK(ranked: readonly string[], evidence: readonly string[], k: number): number {
  const top = new Set(ranked.slice(0, k));
  return evidence.some((id) => top.has(id)) ? 1 : 0;
}

/** 1 when every evidence id is among the first k ranked ids, else 0. */
export function allAtK(ranked: readonly string[], evidence: readonly string[], k: number): number {
  const top = new Set(ranked.slice(0, k));
  return evidence.every((id) => top.has(id)) ? 1 : 0;
}

/** NDCG@k with binary relevance: each evidence turn is relevant (1), every other turn 0. */
export function ndcgAtK(ranked: readonly string[], evidence: readonly string[], k: number): number {
  const relevant = new Set(evidence);
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    if (relevant.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(relevant.size, k); i++) ideal += 1 / Math.log2(i + 2);
  return ideal === 0 ? 0 : dcg / ideal;
}

export function scoreQuestion(
  ranked: readonly string[],
  rankedSessions: readonly number[],
  evidence: readonly string[],
  evidenceSessions: readonly number[],
): QuestionScores {
  const topSessions = new Set(rankedSessions.slice(0, 5));
  return {
    recall_at_5: recallAtK(ranked, evidence, 5),
    recall_at_10: recallAtK(ranked, evidence, 10),
    ndcg_at_10: ndcgAtK(ranked, evidence, 10),
    session_recall_at_5: evidenceSessions.some((s) => topSessions.has(s)) ? 1 : 0,
    all_evidence_at_10: allAtK(ranked, evidence, 10),
  };
}

export type Averages = QuestionScores & { questions: number };

export interface Summary {
  overall: Averages;
  by_category: Record<string, Averages>;
}

function average(scores: readonly QuestionScores[]): Averages {
  const out = { questions: scores.length } as Averages;
  for (const metric of METRICS) {
    const sum = scores.reduce((total, s) => total + s[metric], 0);
    out[metric] = scores.length ? Math.round((sum / scores.length) * 10_000) / 10_000 : 0;
  }
  return out;
}

/** Averages over all questions and per category (categories in first-seen order). */
export function summarise(scored: readonly { category: string; scores: QuestionScores }[]): Summary {
  const byCategory = new Map<string, QuestionScores[]>();
  for (const { category, scores } of scored) {
    const list = byCategory.get(category) ?? [];
    list.push(scores);
    byCategory.set(category, list);
  }
  return {
    overall: average(scored.map((s) => s.scores)),
    by_category: Object.fromEntries([...byCategory].map(([category, list]) => [category, average(list)])),
  };
}
