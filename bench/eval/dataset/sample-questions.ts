/**
 * From every candidate question, the ones the set keeps: ambiguous ones dropped (the same wording
 * produced twice means two turns could answer it), then a fixed number per category.
 */
import type { Category, Line, QuestionDraft } from "./episode.ts";
import { fixArticles } from "./grammar.ts";
import type { Rng } from "./prng.ts";

/** Questions kept per conversation and category (fewer when fewer exist). */
export const QUOTAS: Readonly<Record<Category, number>> = {
  "single-hop": 50,
  "multi-hop": 28,
  temporal: 32,
  paraphrase: 25,
  "open-domain": 15,
};

export interface SampledQuestion {
  category: Category;
  question: string;
  answer: string;
  evidence: string[];
}

const normalise = (text: string) => text.toLowerCase().replace(/\s+/g, " ").trim();

/** Position of a `D<s>:<t>` id in reading order. */
const position = (id: string) => {
  const [s, t] = id.slice(1).split(":").map(Number);
  return s! * 10_000 + t!;
};

export function sampleQuestions(
  rng: Rng,
  drafts: QuestionDraft[],
  ids: Map<Line, string>,
): SampledQuestion[] {
  const counts = new Map<string, number>();
  for (const d of drafts) counts.set(normalise(d.question), (counts.get(normalise(d.question)) ?? 0) + 1);
  const unique = drafts.filter((d) => counts.get(normalise(d.question)) === 1);
  const kept: SampledQuestion[] = [];
  for (const [category, quota] of Object.entries(QUOTAS) as [Category, number][]) {
    const pool = unique.filter((d) => d.category === category);
    for (const d of rng.shuffle(pool).slice(0, quota)) {
      const evidence = [...new Set(d.evidence.map((line) => ids.get(line)))];
      if (evidence.some((id) => id === undefined)) throw new Error(`unplaced evidence for: ${d.question}`);
      evidence.sort((x, y) => position(x!) - position(y!));
      kept.push({
        category,
        question: fixArticles(d.question),
        answer: fixArticles(d.answer),
        evidence: evidence as string[],
      });
    }
  }
  return kept.sort((x, y) => position(x.evidence[0]!) - position(y.evidence[0]!));
}
