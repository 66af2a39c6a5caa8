import { describe, expect, test } from "bun:test";
import { tokenize } from "../../bench/eval/bm25.ts";
import { categoryName } from "../../bench/eval/categories.ts";
import { EVAL_SET_NAME, evalSetJson, generateEvalSet } from "../../bench/eval/dataset/generate-set.ts";
import { fixArticles } from "../../bench/eval/dataset/grammar.ts";
import type { LocomoTurn } from "../../bench/eval/locomo.ts";
import { readLocomoText } from "../../bench/eval/locomo.ts";
import { parseSessionStamp } from "../../bench/eval/locomo-date.ts";

/**
 * The version of the set docs/eval.md and bench/results/eval.json describe. A change to the
 * generator changes it: rerun `bun run eval`, and update this, the docs' figures and the results.
 */
const EXPECTED_SHA256 = "fce97fd0b2c457d8883a252c4033de7c54af98f10f721cd01719bff8dd107b6f";

const { samples, json, sha256 } = evalSetJson();
const set = readLocomoText(json, EVAL_SET_NAME);

const sessionsOf = (conversation: Record<string, unknown>) =>
  Object.keys(conversation)
    .filter((k) => /^session_\d+$/.test(k))
    .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)))
    .map((k) => ({
      n: Number(k.slice(8)),
      turns: conversation[k] as LocomoTurn[],
      date: parseSessionStamp(conversation[`${k}_date_time`]),
    }));

describe("the generated evaluation set", () => {
  test("is the same on every run, and is the version the docs and results describe", () => {
    expect(evalSetJson().sha256).toBe(sha256);
    expect(JSON.stringify(generateEvalSet())).toBe(JSON.stringify(samples));
    expect(sha256).toBe(EXPECTED_SHA256);
  });

  test("holds ten conversations of 15–30 dated sessions and 400–700 turns each", () => {
    expect(samples).toHaveLength(10);
    for (const sample of samples) {
      const sessions = sessionsOf(sample.conversation);
      expect(sessions.length).toBeGreaterThanOrEqual(15);
      expect(sessions.length).toBeLessThanOrEqual(30);
      const turns = sessions.reduce((n, s) => n + s.turns.length, 0);
      expect(turns).toBeGreaterThanOrEqual(400);
      expect(turns).toBeLessThanOrEqual(700);
    }
  });

  test("each session: dated after the one before (and in the past), turns numbered in order, speakers alternating", () => {
    for (const sample of samples) {
      const { speaker_a, speaker_b } = sample.conversation;
      let previous = 0;
      for (const session of sessionsOf(sample.conversation)) {
        expect(session.date).toBeDefined();
        expect(session.date!.getTime()).toBeGreaterThan(previous);
        expect(session.date!.getTime()).toBeLessThan(Date.UTC(2024, 0, 1));
        previous = session.date!.getTime();
        session.turns.forEach((turn, i) => {
          expect(turn.dia_id).toBe(`D${session.n}:${i + 1}`);
          expect([speaker_a, speaker_b]).toContain(turn.speaker);
          if (i > 0) expect(turn.speaker).not.toBe(session.turns[i - 1]!.speaker);
        });
      }
    }
  });

  test("asks at least 1,000 questions, at least 100 in each of the five categories", () => {
    const counts: Record<string, number> = {};
    for (const c of set.conversations)
      for (const q of c.questions) counts[q.category] = (counts[q.category] ?? 0) + 1;
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1000);
    expect(Object.keys(counts).sort()).toEqual([
      "multi-hop",
      "open-domain",
      "paraphrase",
      "single-hop",
      "temporal",
    ]);
    for (const n of Object.values(counts)) expect(n).toBeGreaterThanOrEqual(100);
    expect(set.skipped).toEqual({ unscored_category: 0, no_evidence: 0, unknown_evidence_ids: 0 });
  });

  test("every question is asked once per conversation, its evidence turns exist, and multi-hop needs two or more", () => {
    for (const sample of samples) {
      const ids = new Set(sessionsOf(sample.conversation).flatMap((s) => s.turns.map((t) => t.dia_id)));
      const questions = sample.qa.map((q) => q.question.toLowerCase());
      expect(new Set(questions).size).toBe(questions.length);
      for (const qa of sample.qa) {
        const evidence = qa.evidence as string[];
        for (const id of evidence) expect(ids.has(id)).toBe(true);
        const category = categoryName(qa.category);
        if (category === "multi-hop") expect(evidence.length).toBeGreaterThanOrEqual(2);
        if (category === "single-hop" || category === "paraphrase") expect(evidence).toHaveLength(1);
        expect(typeof qa.answer).toBe("string");
        expect(String(qa.answer).length).toBeGreaterThan(0);
      }
    }
  });

  test("paraphrased questions share far fewer words with their evidence than single-hop ones", () => {
    const stop = new Set([
      "what",
      "which",
      "who",
      "how",
      "did",
      "does",
      "do",
      "is",
      "the",
      "a",
      "an",
      "of",
      "to",
      "in",
      "s",
    ]);
    const overlap = (category: string) => {
      const shares: number[] = [];
      for (const c of set.conversations) {
        const text = new Map(c.turns.map((t) => [t.id, new Set(tokenize(t.text))]));
        const names = new Set(c.speakers.map((s) => s.toLowerCase()));
        for (const q of c.questions.filter((q) => q.category === category)) {
          const words = tokenize(q.question).filter((w) => !stop.has(w) && !names.has(w));
          const evidence = text.get(q.evidence[0]!)!;
          shares.push(words.filter((w) => evidence.has(w)).length / Math.max(1, words.length));
        }
      }
      return shares.reduce((a, b) => a + b, 0) / shares.length;
    };
    expect(overlap("paraphrase")).toBeLessThan(overlap("single-hop") / 2);
  });
});

describe("articles", () => {
  test("'a' or 'an' follows the next word's sound", () => {
    expect(fixArticles("A 8 percent raise and a Asus laptop")).toBe("An 8 percent raise and an Asus laptop");
    expect(fixArticles("a used car, a one-bedroom, an hour, an dog, a 11-minute jam")).toBe(
      "a used car, a one-bedroom, an hour, a dog, an 11-minute jam",
    );
  });
});
