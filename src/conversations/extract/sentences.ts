/**
 * A turn's text cut into sentences, each a span of the text (start offset and the exact text), so
 * that whatever a rule takes from a sentence is a span of the turn too.
 */

export interface Sentence {
  text: string;
  start: number;
  /** Whether it ends with a question mark: a question states nothing. */
  question: boolean;
}

/** A sentence ends at `.`, `!`, `?` or `;` followed by a space (or the end), or at a line break. */
const SENTENCE = /[^.!?;\n]+(?:[.!?;]+(?=\s|$)|[.!?;]+[^\s.!?;][^.!?;\n]*[.!?;]*(?=\s|$))*[.!?;]*/g;

export function sentencesOf(content: string): Sentence[] {
  const out: Sentence[] = [];
  for (const m of content.matchAll(SENTENCE)) {
    const raw = m[0];
    const lead = raw.length - raw.trimStart().length;
    const text = raw.trim();
    if (!text) continue;
    out.push({ text, start: m.index + lead, question: text.endsWith("?") });
  }
  return out;
}

/** The span without trailing punctuation and spaces (a sentence's text ends with its full stop). */
export function trimEnd(text: string): string {
  return text.replace(/[\s.!;,:]+$/u, "");
}
