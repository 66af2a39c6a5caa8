/**
 * The deterministic extractor: sentence rules (rules.ts) and workflows (workflow.ts) over each
 * turn, in order. What it writes is a span of a turn, or `<speaker>: <span>`; it invents no text.
 * Same turns, same drafts, on every run and machine.
 */

import { holderKey } from "./names.ts";
import { type Found, findIn } from "./rules.ts";
import { sentencesOf } from "./sentences.ts";
import { CATEGORY_OF, type ExtractedDraft, type Extractor, type Turn } from "./types.ts";
import { workflowIn } from "./workflow.ts";

export const DETERMINISTIC_EXTRACTOR = "rules-v1";

/** The text an entry is written with: the speaker's name and the span, so a search by name finds it. */
export const said = (speaker: string, span: string) => (speaker ? `${speaker}: ${span}` : span);

export const deterministicExtractor: Extractor = {
  name: DETERMINISTIC_EXTRACTOR,
  extract(turns: readonly Turn[]): ExtractedDraft[] {
    const drafts: ExtractedDraft[] = [];
    turns.forEach((turn, i) => {
      for (const sentence of sentencesOf(turn.content)) {
        if (sentence.question) continue;
        for (const found of findIn(sentence.text)) {
          const draft = draftOf(found, sentence.text, turn, i);
          if (draft) drafts.push(draft);
        }
      }
      const workflow = workflowIn(turn.content);
      if (workflow && fits(workflow.steps))
        drafts.push({
          kind: "workflow",
          category: "workflow",
          content: said(turn.speaker, workflow.span),
          turns: [i],
          at: turn.at,
          steps: workflow.steps,
        });
    });
    return drafts;
  },
};

/** A workflow's steps within an entry's limits (256 steps of 4,096 characters); else none is written. */
const fits = (steps: string[]) => steps.length <= 256 && steps.every((s) => s.length <= 4096);

function draftOf(found: Found, sentence: string, turn: Turn, i: number): ExtractedDraft | undefined {
  const holderName = (h: Found["holder"]) => (h && "name" in h ? h.name : turn.speaker);
  const draft: ExtractedDraft = {
    kind: found.kind,
    category: CATEGORY_OF[found.kind],
    content: said(turn.speaker, sentence),
    turns: [i],
    at: turn.at,
  };
  if (found.attribute && found.holder && holderName(found.holder))
    draft.key = { holder: holderKey(holderName(found.holder)), attribute: found.attribute };
  if (found.relation) {
    const subject = holderName(found.relation.subject);
    // A relationship needs its three parts: "I work at …" said by no one named is none.
    if (!subject) return undefined;
    draft.relation = { ...found.relation, subject };
  }
  if (found.chosen && found.chosen.length <= 4096) draft.chosen = found.chosen;
  return draft;
}
