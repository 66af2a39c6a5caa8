/**
 * One business question's ranked answer scored against its gold entries, and the averages per kind.
 * A figure a kind does not define (two-source recall for a one-source question) is left out of
 * that kind's average rather than counted as 0.
 */
import type { BusinessQuestion, Kind } from "./questions.ts";
import type { EntryMeta } from "./timeline.ts";

export interface BusinessScores {
  hit_at_1: number;
  recall_at_5: number;
  recall_at_10: number;
  /** Two-source questions: 1 when every group has an entry in the first 10. */
  all_gold_at_10?: number;
  /** "What do we know about X?": share of X's entries in the first 10 (of at most 10). */
  entries_at_10?: number;
  /** "What do we know about X?": share of X's sources with an entry in the first 10. */
  sources_at_10?: number;
  /** 1 when a stale or closed entry of the same object ranks above the first gold entry. */
  stale_above?: number;
}

export const BUSINESS_METRICS = [
  "hit_at_1",
  "recall_at_5",
  "recall_at_10",
  "all_gold_at_10",
  "entries_at_10",
  "sources_at_10",
  "stale_above",
] as const satisfies readonly (keyof BusinessScores)[];

const anyIn = (ranked: readonly string[], gold: ReadonlySet<string>, k: number) =>
  ranked.slice(0, k).some((key) => gold.has(key)) ? 1 : 0;

/** `ranked` holds step keys, best first (10 at most). */
export function scoreBusiness(
  q: BusinessQuestion,
  ranked: readonly string[],
  metaOf: (key: string) => EntryMeta | undefined,
): BusinessScores {
  const gold = new Set(q.gold);
  const top = ranked.slice(0, 10);
  const scores: BusinessScores = {
    hit_at_1: anyIn(ranked, gold, 1),
    recall_at_5: anyIn(ranked, gold, 5),
    recall_at_10: anyIn(ranked, gold, 10),
  };
  if (q.groups) scores.all_gold_at_10 = q.groups.every((g) => anyIn(top, new Set(g), 10)) ? 1 : 0;
  if (q.kind === "know_about") {
    const found = top.filter((key) => gold.has(key));
    scores.entries_at_10 = found.length / Math.min(10, gold.size);
    const sources = new Set(q.gold.map((key) => metaOf(key)?.source));
    scores.sources_at_10 = new Set(found.map((key) => metaOf(key)?.source)).size / sources.size;
  }
  if (q.stale?.length) {
    const stale = new Set(q.stale);
    const first = top.findIndex((key) => gold.has(key));
    scores.stale_above = top.slice(0, first < 0 ? top.length : first).some((key) => stale.has(key)) ? 1 : 0;
  }
  return scores;
}

export type KindAverages = { questions: number } & Partial<Record<(typeof BUSINESS_METRICS)[number], number>>;

export function summariseBusiness(
  scored: readonly { kind: Kind; scores: BusinessScores }[],
): Record<string, KindAverages> {
  const byKind = new Map<string, BusinessScores[]>();
  for (const { kind, scores } of scored) byKind.set(kind, [...(byKind.get(kind) ?? []), scores]);
  const out: Record<string, KindAverages> = {};
  for (const [kind, list] of byKind) {
    const averages: KindAverages = { questions: list.length };
    for (const metric of BUSINESS_METRICS) {
      const values = list.map((s) => s[metric]).filter((v): v is number => v !== undefined);
      if (values.length)
        averages[metric] = Math.round((values.reduce((a, b) => a + b, 0) / values.length) * 1000) / 1000;
    }
    out[kind] = averages;
  }
  return out;
}
