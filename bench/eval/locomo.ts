/**
 * Reads an evaluation set in LoCoMo's JSON format (an array of samples, each a conversation of
 * dated sessions and its questions with evidence turn ids) into the turns to write and the
 * questions to ask. The project's own set is written in this format, so one reader serves both it
 * and a LoCoMo file a user downloads (`--locomo PATH`).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { categoryName, UNSCORED_CATEGORIES } from "./categories.ts";
import { parseSessionStamp } from "./locomo-date.ts";

export interface LocomoTurn {
  speaker: string;
  dia_id: string;
  text: string;
}

export interface LocomoQa {
  question: string;
  answer?: unknown;
  evidence?: unknown;
  category?: unknown;
}

export interface LocomoSample {
  sample_id: string;
  /** speaker_a, speaker_b, session_<n> (turns) and session_<n>_date_time (stamps). */
  conversation: Record<string, string | LocomoTurn[]>;
  qa: LocomoQa[];
}

export interface EvalTurn {
  /** `D<session>:<turn>` */
  id: string;
  session: number;
  speaker: string;
  text: string;
  /** The session's date plus one minute per earlier turn of the session. */
  validFrom: Date;
}

export interface EvalQuestion {
  question: string;
  category: string;
  /** Ids of turns that exist in the conversation. */
  evidence: string[];
}

export interface EvalConversation {
  id: string;
  speakers: [string, string];
  sessions: number;
  turns: EvalTurn[];
  questions: EvalQuestion[];
}

export interface EvalSet {
  name: string;
  /** SHA-256 of the JSON text read, identifying the exact version evaluated. */
  sha256?: string;
  conversations: EvalConversation[];
  /** Questions left out, and why. */
  skipped: { unscored_category: number; no_evidence: number; unknown_evidence_ids: number };
}

export class EvalSetInvalid extends Error {}

const TURN_ID = /D\s*(\d+)\s*:\s*(\d+)/gi;
const MINUTE = 60_000;

/** Every `D<s>:<t>` in the evidence, however it is written ("D8:6; D9:17" in one string too). */
export function evidenceIds(raw: unknown): string[] {
  const parts = Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw];
  const ids: string[] = [];
  for (const part of parts) {
    if (typeof part !== "string") continue;
    for (const m of part.matchAll(TURN_ID)) ids.push(`D${Number(m[1])}:${Number(m[2])}`);
  }
  return [...new Set(ids)];
}

function sessionNumbers(conversation: Record<string, unknown>): number[] {
  return Object.keys(conversation)
    .map((key) => key.match(/^session_(\d+)$/)?.[1])
    .filter((n): n is string => n !== undefined && Array.isArray(conversation[`session_${n}`]))
    .map(Number)
    .sort((x, y) => x - y);
}

function readTurns(sample: LocomoSample, where: string): { turns: EvalTurn[]; sessions: number } {
  const numbers = sessionNumbers(sample.conversation);
  if (numbers.length === 0) throw new EvalSetInvalid(`${where}: no session_<n> arrays in its conversation`);
  const turns: EvalTurn[] = [];
  let previous: Date | undefined;
  for (const n of numbers) {
    // A missing or unreadable stamp follows the previous session by a day.
    const date =
      parseSessionStamp(sample.conversation[`session_${n}_date_time`]) ??
      (previous ? new Date(previous.getTime() + 1440 * MINUTE) : new Date(Date.UTC(2023, 0, 1)));
    previous = date;
    const session = sample.conversation[`session_${n}`] as LocomoTurn[];
    session.forEach((turn, i) => {
      if (typeof turn?.text !== "string" || typeof turn.dia_id !== "string")
        throw new EvalSetInvalid(`${where}, session_${n}[${i}]: a turn needs text and dia_id`);
      const ids = evidenceIds(turn.dia_id);
      turns.push({
        id: ids[0] ?? turn.dia_id,
        session: n,
        speaker: typeof turn.speaker === "string" ? turn.speaker : "",
        text: turn.text,
        validFrom: new Date(date.getTime() + i * MINUTE),
      });
    });
  }
  return { turns, sessions: numbers.length };
}

function readSample(sample: LocomoSample, index: number, skipped: EvalSet["skipped"]): EvalConversation {
  const where = `sample ${index} (${sample?.sample_id ?? "no sample_id"})`;
  if (!sample || typeof sample.conversation !== "object" || sample.conversation === null)
    throw new EvalSetInvalid(`${where}: no conversation object`);
  if (!Array.isArray(sample.qa)) throw new EvalSetInvalid(`${where}: no qa array`);
  const { turns, sessions } = readTurns(sample, where);
  const known = new Set(turns.map((t) => t.id));
  const questions: EvalQuestion[] = [];
  for (const qa of sample.qa) {
    const category = categoryName(qa.category);
    if (UNSCORED_CATEGORIES.has(category)) {
      skipped.unscored_category++;
      continue;
    }
    const ids = evidenceIds(qa.evidence);
    const evidence = ids.filter((id) => known.has(id));
    skipped.unknown_evidence_ids += ids.length - evidence.length;
    if (evidence.length === 0 || typeof qa.question !== "string" || qa.question.trim() === "") {
      skipped.no_evidence++;
      continue;
    }
    questions.push({ question: qa.question, category, evidence });
  }
  const speakers: [string, string] = [
    String(sample.conversation.speaker_a ?? ""),
    String(sample.conversation.speaker_b ?? ""),
  ];
  return { id: String(sample.sample_id ?? `sample-${index}`), speakers, sessions, turns, questions };
}

/** Parsed LoCoMo JSON (an array of samples, or one sample) as an evaluation set. */
export function readLocomo(data: unknown, name: string): EvalSet {
  const samples = Array.isArray(data) ? data : data && typeof data === "object" ? [data] : undefined;
  if (!samples || samples.length === 0) throw new EvalSetInvalid("expected an array of LoCoMo samples");
  const skipped = { unscored_category: 0, no_evidence: 0, unknown_evidence_ids: 0 };
  const conversations = samples.map((sample, i) => readSample(sample as LocomoSample, i, skipped));
  return { name, conversations, skipped };
}

/** LoCoMo JSON text as an evaluation set, identified by the text's SHA-256. */
export function readLocomoText(text: string, name: string): EvalSet {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new EvalSetInvalid(
      `${name} is not JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return { ...readLocomo(data, name), sha256: createHash("sha256").update(text).digest("hex") };
}

export function readLocomoFile(path: string, name = path): EvalSet {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new EvalSetInvalid(
      `cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return readLocomoText(text, name);
}

/**
 * A smaller set for a quick run: the first `conversations`, each with at most `questions`
 * questions taken evenly across its list (so every category and session range stays in).
 */
export function subset(set: EvalSet, conversations: number, questions: number): EvalSet {
  return {
    ...set,
    name: `${set.name} (small)`,
    conversations: set.conversations.slice(0, conversations).map((c) => {
      if (c.questions.length <= questions) return c;
      const step = c.questions.length / questions;
      return {
        ...c,
        questions: Array.from({ length: questions }, (_, i) => c.questions[Math.floor(i * step)]!),
      };
    }),
  };
}
