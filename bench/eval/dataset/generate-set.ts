/**
 * The project's evaluation set, generated: ten two-person conversations in LoCoMo's JSON format,
 * with their questions and evidence turns. Deterministic: the same seed gives the same set, byte
 * for byte, on any machine; `bun run eval` generates it in memory and records its SHA-256.
 */
import { createHash } from "node:crypto";
import { NUMBER_BY_CATEGORY } from "../categories.ts";
import type { LocomoSample } from "../locomo.ts";
import { generateConversation } from "./conversation.ts";
import { PEOPLE } from "./names.ts";
import { Rng } from "./prng.ts";
import { sampleQuestions } from "./sample-questions.ts";
import { formatSessionStamp } from "./time.ts";

export const EVAL_SET_NAME = "memory-eval-v1";
export const EVAL_SEED = 20_20_07;
export const EVAL_CONVERSATIONS = 10;

export function generateEvalSet(seed = EVAL_SEED, conversations = EVAL_CONVERSATIONS): LocomoSample[] {
  const rng = new Rng(seed);
  const speakers = rng.shuffle(PEOPLE);
  if (speakers.length < 2 * conversations) throw new Error("not enough speaker names");
  return Array.from({ length: conversations }, (_, i) => {
    const [a, pa] = speakers[2 * i]!;
    const [b, pb] = speakers[2 * i + 1]!;
    const own = rng.fork();
    const convo = generateConversation(own, a, b, [pa, pb]);
    const conversation: LocomoSample["conversation"] = { speaker_a: a, speaker_b: b };
    for (const session of convo.sessions) {
      conversation[`session_${session.index}_date_time`] = formatSessionStamp(session.date);
      conversation[`session_${session.index}`] = session.turns;
    }
    const qa = sampleQuestions(own, convo.drafts, convo.ids).map((question) => ({
      question: question.question,
      answer: question.answer,
      evidence: question.evidence,
      category: NUMBER_BY_CATEGORY[question.category]!,
    }));
    return { sample_id: `${EVAL_SET_NAME}-${i + 1}`, conversation, qa };
  });
}

/** The set as LoCoMo JSON text, and the SHA-256 that identifies this exact version of it. */
export function evalSetJson(seed = EVAL_SEED): { samples: LocomoSample[]; json: string; sha256: string } {
  const samples = generateEvalSet(seed);
  const json = `${JSON.stringify(samples, null, 2)}\n`;
  return { samples, json, sha256: createHash("sha256").update(json).digest("hex") };
}
