/**
 * What the model extractor asks and how its answer is read. The prompt is fixed: the kinds of
 * statement, the JSON Schema of each category's entry (the request schema of
 * `POST /memory/{category}`, the very one every entry is checked against) and the numbered turns.
 * The answer is read into candidates; one that is not even the shape asked for is counted as
 * dropped here, the others are checked against their category's schema where they are written.
 */
import { ENTRY_INPUT } from "../../models/entry.ts";
import { CATEGORY_OF, EXTRACT_KINDS, type ExtractKind } from "../extract/types.ts";
import type { ChatMessage } from "./chat-client.ts";
import { ModelAnswerBad } from "./chat-client.ts";

/** One turn as the model sees it (numbered from 0 in the prompt). */
export interface ModelTurn {
  id: string;
  speaker: string;
  content: string;
  at: number;
}

/** An entry the model proposes: its kind, the turns it came from (indexes into the job's turns), its body. */
export interface ModelCandidate {
  kind: ExtractKind;
  turns: number[];
  entry: Record<string, unknown> & { category: string };
}

/** The categories the kinds are written as, each once. */
const CATEGORIES = [...new Set(Object.values(CATEGORY_OF))];

const SYSTEM = [
  "You extract durable memory from a conversation: what a later question about these people could need.",
  `Kinds of statement: ${EXTRACT_KINDS.join(", ")}. The category each kind is written as: ${JSON.stringify(CATEGORY_OF)}.`,
  'Answer one JSON object and nothing else: {"entries": [{"kind": <kind>, "turns": [<numbers of the turns it comes from>], "entry": {"category": <category>, ...the fields of that category\'s schema}}]}.',
  "Each entry must validate against its category's JSON Schema below; use the words of the turns, invent nothing; no entry for small talk or questions. An empty list is a valid answer.",
  ...CATEGORIES.map((c) => `Schema of category ${c}: ${JSON.stringify(ENTRY_INPUT[c])}`),
].join("\n");

export function promptFor(turns: readonly ModelTurn[]): ChatMessage[] {
  const lines = turns.map((t, i) => `[${i}] ${new Date(t.at).toISOString()} ${t.speaker}: ${t.content}`);
  return [
    { role: "system", content: SYSTEM },
    { role: "user", content: `The conversation's turns:\n${lines.join("\n")}` },
  ];
}

/**
 * The candidates of an answer, and how many of its entries were not even candidates (an unknown
 * kind, a category not the kind's, turns that are not the job's). No `entries` list at all is a
 * bad answer (ModelAnswerBad).
 */
export function candidatesOf(
  answer: Record<string, unknown>,
  turnCount: number,
): { candidates: ModelCandidate[]; malformed: number } {
  const entries = answer.entries;
  if (!Array.isArray(entries)) throw new ModelAnswerBad("the model's answer has no `entries` list");
  const candidates: ModelCandidate[] = [];
  for (const item of entries) {
    const candidate = candidateOf(item, turnCount);
    if (candidate) candidates.push(candidate);
  }
  return { candidates, malformed: entries.length - candidates.length };
}

function candidateOf(item: unknown, turnCount: number): ModelCandidate | undefined {
  if (!isObject(item)) return undefined;
  const { kind, turns, entry } = item;
  if (typeof kind !== "string" || !(EXTRACT_KINDS as readonly string[]).includes(kind)) return undefined;
  if (!isObject(entry) || entry.category !== CATEGORY_OF[kind as ExtractKind]) return undefined;
  if (!Array.isArray(turns) || turns.length === 0) return undefined;
  if (!turns.every((t) => Number.isInteger(t) && t >= 0 && t < turnCount)) return undefined;
  const sorted = [...new Set(turns as number[])].sort((a, b) => a - b);
  return { kind: kind as ExtractKind, turns: sorted, entry: entry as ModelCandidate["entry"] };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);
