/**
 * The extractor invents no text: every text it writes is a span of one of its turns, or that
 * turn's speaker and a span joined by ": " (the one template). Checked over generated turns that
 * mix the phrasings the rules look for with arbitrary text.
 */
import { expect, test } from "bun:test";
import fc from "fast-check";
import { deterministicExtractor } from "../../../src/conversations/extract/deterministic.ts";
import type { ExtractedDraft, Turn } from "../../../src/conversations/extract/types.ts";

const PHRASES = [
  "I moved to Berlin",
  "I prefer tea",
  "my daughter is called Lily",
  "we decided to ship it",
  "let's go with Postgres",
  "I'll send it Friday",
  "Ada works at Acme Corp",
  "first wash, then dry, and finally fold",
  "1. Open 2. Close",
  "our team meeting is on Monday at 9am",
  "Tom is the CEO of Globex",
  "My favourite food is pho",
];

const fragment = fc.oneof(
  fc.constantFrom(...PHRASES),
  fc.string({ maxLength: 30 }),
  fc.constantFrom(". ", ", ", "! ", "\n", "? "),
);
const turn: fc.Arbitrary<Turn> = fc.record({
  speaker: fc.constantFrom("Maya", "Sam", "", "Dr. Ng"),
  content: fc.array(fragment, { minLength: 1, maxLength: 8 }).map((parts) => parts.join(" ")),
  at: fc.integer({ min: 0, max: 2 ** 40 }),
});

/** Whether `text` is a span of one of the draft's turns, or `<speaker>: <span>` of one. */
function grounded(text: string, draft: ExtractedDraft, turns: Turn[], speakerAlone = false): boolean {
  return draft.turns.some((i) => {
    const t = turns[i]!;
    if (t.content.includes(text)) return true;
    if (speakerAlone && text === t.speaker) return true;
    const prefix = `${t.speaker}: `;
    return t.speaker !== "" && text.startsWith(prefix) && t.content.includes(text.slice(prefix.length));
  });
}

test("every extracted text is a span of its turns (or the speaker and a span)", () => {
  fc.assert(
    fc.property(fc.array(turn, { minLength: 1, maxLength: 6 }), (turns) => {
      for (const d of deterministicExtractor.extract(turns)) {
        expect(d.turns.every((i) => i >= 0 && i < turns.length)).toBe(true);
        expect(grounded(d.content, d, turns)).toBe(true);
        expect(d.content.length).toBeGreaterThan(0);
        for (const step of d.steps ?? []) expect(grounded(step, d, turns)).toBe(true);
        if (d.chosen !== undefined) expect(grounded(d.chosen, d, turns)).toBe(true);
        if (d.relation) {
          expect(grounded(d.relation.subject, d, turns, true)).toBe(true);
          expect(grounded(d.relation.predicate, d, turns)).toBe(true);
          expect(grounded(d.relation.object, d, turns)).toBe(true);
        }
        expect(d.at).toBe(turns[d.turns.at(-1)!]!.at);
      }
    }),
    { numRuns: 500, seed: 32 },
  );
});

test("the same turns give the same drafts", () => {
  fc.assert(
    fc.property(fc.array(turn, { minLength: 1, maxLength: 6 }), (turns) => {
      expect(deterministicExtractor.extract(turns)).toEqual(deterministicExtractor.extract(turns));
    }),
    { numRuns: 100, seed: 7 },
  );
});
