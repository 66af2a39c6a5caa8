import { describe, expect, test } from "bun:test";
import { allAtK, ndcgAtK, recallAtK, scoreQuestion, summarise } from "../../bench/eval/metrics.ts";

const ranking = ["D1:1", "D1:2", "D2:1", "D2:2", "D3:1", "D3:2", "D4:1", "D4:2", "D5:1", "D5:2", "D6:1"];

describe("recall@k", () => {
  test("is 1 when any evidence turn is among the first k, else 0", () => {
    expect(recallAtK(ranking, ["D3:1"], 5)).toBe(1);
    expect(recallAtK(ranking, ["D3:2"], 5)).toBe(0);
    expect(recallAtK(ranking, ["D3:2"], 10)).toBe(1);
    expect(recallAtK(ranking, ["D9:9", "D5:2"], 10)).toBe(1);
    expect(recallAtK(ranking, ["D6:1"], 10)).toBe(0);
    expect(recallAtK([], ["D1:1"], 10)).toBe(0);
  });

  test("all-evidence recall needs every evidence turn among the first k", () => {
    expect(allAtK(ranking, ["D1:1", "D5:2"], 10)).toBe(1);
    expect(allAtK(ranking, ["D1:1", "D6:1"], 10)).toBe(0);
  });
});

describe("NDCG@10 with binary relevance", () => {
  test("is 1 for evidence ranked first, and 1/log2(r+1) for one evidence turn at rank r", () => {
    expect(ndcgAtK(ranking, ["D1:1"], 10)).toBe(1);
    expect(ndcgAtK(ranking, ["D1:2"], 10)).toBeCloseTo(1 / Math.log2(3), 10);
    expect(ndcgAtK(ranking, ["D5:2"], 10)).toBeCloseTo(1 / Math.log2(11), 10);
    expect(ndcgAtK(ranking, ["D6:1"], 10)).toBe(0);
  });

  test("normalises by the ideal ranking of every evidence turn (at most 10 of them)", () => {
    // Evidence at ranks 1 and 3 of 2 evidence turns: (1 + 1/2) / (1 + 1/log2 3).
    expect(ndcgAtK(ranking, ["D1:1", "D2:1"], 10)).toBeCloseTo(1.5 / (1 + 1 / Math.log2(3)), 10);
    // Both first: perfect.
    expect(ndcgAtK(ranking, ["D1:2", "D1:1"], 10)).toBe(1);
    // A third evidence turn never retrieved lowers the ideal-normalised score.
    expect(ndcgAtK(ranking, ["D1:1", "D1:2", "D9:9"], 10)).toBeCloseTo(
      (1 + 1 / Math.log2(3)) / (1 + 1 / Math.log2(3) + 1 / Math.log2(4)),
      10,
    );
  });
});

describe("a question's scores", () => {
  test("session recall@5 finds an evidence turn's session among the first five results' sessions", () => {
    const ids = ["D2:9", "D4:1", "D4:2", "D7:3", "D7:4", "D1:1"];
    const sessions = [2, 4, 4, 7, 7, 1];
    const scores = scoreQuestion(ids, sessions, ["D1:1"], [1]);
    expect(scores).toEqual({
      recall_at_5: 0,
      recall_at_10: 1,
      ndcg_at_10: 1 / Math.log2(7),
      session_recall_at_5: 0,
      all_evidence_at_10: 1,
    });
    expect(scoreQuestion(ids, sessions, ["D7:9"], [7]).session_recall_at_5).toBe(1);
    expect(scoreQuestion(ids, sessions, ["D7:9"], [7]).recall_at_10).toBe(0);
  });

  test("averages are per question, overall and per category, rounded to 4 places", () => {
    const hit = scoreQuestion(["A"], [1], ["A"], [1]);
    const miss = scoreQuestion(["B"], [2], ["A"], [1]);
    const summary = summarise([
      { category: "single-hop", scores: hit },
      { category: "single-hop", scores: miss },
      { category: "temporal", scores: miss },
    ]);
    expect(summary.overall).toEqual({
      questions: 3,
      recall_at_5: 0.3333,
      recall_at_10: 0.3333,
      ndcg_at_10: 0.3333,
      session_recall_at_5: 0.3333,
      all_evidence_at_10: 0.3333,
    });
    expect(Object.keys(summary.by_category)).toEqual(["single-hop", "temporal"]);
    expect(summary.by_category["single-hop"]!.recall_at_10).toBe(0.5);
    expect(summary.by_category.temporal!.recall_at_10).toBe(0);
  });
});
