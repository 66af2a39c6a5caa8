/**
 * The extractor's precision and recall per kind on the labelled set: a draft of kind K from turn t
 * is right when t is labelled K. Recall is also given apart for the phrasings the rules know and
 * for the held-out ones; `key_accuracy` is the share of right drafts of a keyed label that carry
 * that key's attribute (what supersession relies on).
 */
import { deterministicExtractor } from "../../../src/conversations/extract/deterministic.ts";
import type { Extractor } from "../../../src/conversations/extract/types.ts";
import { EXTRACT_KINDS, type ExtractKind } from "../../../src/models/conversation.ts";
import { round } from "../../stats.ts";
import type { LabelledSet } from "./labelled-set.ts";

export interface KindScore {
  labelled: number;
  extracted: number;
  correct: number;
  precision: number | null;
  recall: number | null;
  recall_covered: number | null;
  recall_held_out: number | null;
  key_accuracy: number | null;
}

export interface ExtractorScore {
  extractor: string;
  turns: number;
  by_kind: Record<ExtractKind, KindScore>;
  overall: { precision: number | null; recall: number | null };
}

const ratio = (a: number, b: number) => (b === 0 ? null : round(a / b));

export function scoreExtractor(
  set: LabelledSet,
  extractor: Extractor = deterministicExtractor,
): ExtractorScore {
  const tally = Object.fromEntries(
    EXTRACT_KINDS.map((k) => [
      k,
      { labelled: 0, extracted: 0, correct: 0, covered: [0, 0], held: [0, 0], keyed: [0, 0] },
    ]),
  ) as Record<
    ExtractKind,
    {
      labelled: number;
      extracted: number;
      correct: number;
      covered: number[];
      held: number[];
      keyed: number[];
    }
  >;
  let turns = 0;
  for (const session of set.sessions) {
    const drafts = extractor.extract(
      session.turns.map((t) => ({ speaker: t.speaker, content: t.content, at: Date.parse(t.at) })),
    );
    turns += session.turns.length;
    session.turns.forEach((turn, i) => {
      const mine = drafts.filter((d) => d.turns.includes(i));
      const kinds = new Set(mine.map((d) => d.kind));
      for (const kind of kinds) tally[kind].extracted++;
      for (const label of turn.labels) {
        const t = tally[label.kind];
        t.labelled++;
        const hit = kinds.has(label.kind);
        const bucket = turn.heldOut ? t.held : t.covered;
        bucket[1]!++;
        if (!hit) continue;
        t.correct++;
        bucket[0]!++;
        if (label.attribute) {
          t.keyed[1]!++;
          if (mine.some((d) => d.kind === label.kind && d.key?.attribute === label.attribute)) t.keyed[0]!++;
        }
      }
    });
  }
  const byKind = Object.fromEntries(
    EXTRACT_KINDS.map((k) => {
      const t = tally[k];
      return [
        k,
        {
          labelled: t.labelled,
          extracted: t.extracted,
          correct: t.correct,
          precision: ratio(t.correct, t.extracted),
          recall: ratio(t.correct, t.labelled),
          recall_covered: ratio(t.covered[0]!, t.covered[1]!),
          recall_held_out: ratio(t.held[0]!, t.held[1]!),
          key_accuracy: ratio(t.keyed[0]!, t.keyed[1]!),
        },
      ];
    }),
  ) as Record<ExtractKind, KindScore>;
  const sum = (f: (s: KindScore) => number) => EXTRACT_KINDS.reduce((n, k) => n + f(byKind[k]), 0);
  return {
    extractor: extractor.name,
    turns,
    by_kind: byKind,
    overall: {
      precision: ratio(
        sum((s) => s.correct),
        sum((s) => s.extracted),
      ),
      recall: ratio(
        sum((s) => s.correct),
        sum((s) => s.labelled),
      ),
    },
  };
}
