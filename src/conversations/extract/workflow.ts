/**
 * Workflows said in one turn: "first X, then Y, and finally Z" or a numbered list ("1. X 2. Y").
 * The steps and the whole are spans of the turn's text.
 */
import { trimEnd } from "./sentences.ts";

export interface FoundWorkflow {
  /** The span from the start of the sentence that says "first" to the end of the last step. */
  span: string;
  steps: string[];
}

const FIRST = /\b(?:[Ff]irst(?:ly)?|[Ss]tep (?:1|one))\b[,:]?\s*/u;
const NEXT =
  /[,;.]?\s*(?:\band\s+)?\b(?:[Tt]hen|[Aa]fter that|[Aa]fterwards|[Nn]ext|[Ff]inally|[Ll]astly|[Ss]tep (?:[2-9]|two|three|four|five))\b[,:]?\s*/gu;
const NUMBERED = /(?:^|\s)([1-9])[.)]\s+/gu;

/** The workflow a turn states, if it names at least two steps in order. */
export function workflowIn(content: string): FoundWorkflow | undefined {
  return sequenced(content) ?? numbered(content);
}

function sequenced(content: string): FoundWorkflow | undefined {
  const first = FIRST.exec(content);
  if (!first) return undefined;
  const from = sentenceStart(content, first.index);
  const bodyStart = first.index + first[0].length;
  const cuts: Array<{ at: number; end: number }> = [];
  for (const m of content.slice(bodyStart).matchAll(NEXT)) {
    cuts.push({ at: bodyStart + m.index, end: bodyStart + m.index + m[0].length });
  }
  if (cuts.length === 0) return undefined;
  const steps: string[] = [];
  let start = bodyStart;
  for (const cut of cuts) {
    steps.push(step(content.slice(start, cut.at)));
    start = cut.end;
  }
  const last = lastStep(content, start);
  steps.push(last.text);
  if (steps.some((s) => s.length === 0)) return undefined;
  return { span: content.slice(from, last.end), steps };
}

function numbered(content: string): FoundWorkflow | undefined {
  const marks = [...content.matchAll(NUMBERED)];
  if (marks.length < 2 || marks[0]![1] !== "1") return undefined;
  for (const [i, m] of marks.entries()) if (m[1] !== String(i + 1)) return undefined;
  const steps: string[] = [];
  for (const [i, m] of marks.entries()) {
    const start = m.index + m[0].length;
    const end = marks[i + 1]?.index ?? content.length;
    steps.push(step(content.slice(start, end)));
  }
  if (steps.some((s) => s.length === 0)) return undefined;
  const from = sentenceStart(content, marks[0]!.index);
  return { span: trimEnd(content.slice(from)), steps };
}

/** The last step ends at its sentence's end. */
function lastStep(content: string, start: number): { text: string; end: number } {
  const rest = content.slice(start);
  const stop = rest.search(/[.!?;](?:\s|$)|\n/u);
  const raw = stop < 0 ? rest : rest.slice(0, stop);
  const text = step(raw);
  return { text, end: start + raw.trimEnd().length };
}

function step(raw: string): string {
  return trimEnd(raw.trim()).replace(/^(?:and|,)\s+/u, "");
}

function sentenceStart(content: string, at: number): number {
  const before = content.slice(0, at);
  const stop = Math.max(before.lastIndexOf(". "), before.lastIndexOf("! "), before.lastIndexOf("\n"));
  return stop < 0 ? 0 : stop + (content[stop] === "\n" ? 1 : 2);
}
