import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TranscriptsReport } from "../../bench/eval/conversations/evaluate-transcripts.ts";
import { scoreExtractor } from "../../bench/eval/conversations/extractor-score.ts";
import { labelledSet } from "../../bench/eval/conversations/labelled-set.ts";
import { evaluateRoute } from "../../bench/eval/conversations/route-eval.ts";
import type { Extractor } from "../../src/conversations/extract/types.ts";
import { EXTRACT_KINDS } from "../../src/models/conversation.ts";

test("the labelled set is the same on every run, and labels every kind", () => {
  const set = labelledSet();
  expect(labelledSet()).toEqual(set);
  const kinds = new Set(set.sessions.flatMap((s) => s.turns.flatMap((t) => t.labels.map((l) => l.kind))));
  expect([...kinds].sort()).toEqual([...EXTRACT_KINDS].sort());
  expect(set.sessions.some((s) => s.turns.some((t) => t.heldOut))).toBe(true);
  expect(set.questions.filter((q) => q.kind === "current").length).toBeGreaterThan(0);
});

test("precision and recall count drafts against labels, per kind", () => {
  const set = labelledSet(1);
  const nothing: Extractor = { name: "none", extract: () => [] };
  const none = scoreExtractor(set, nothing);
  expect(none.overall).toEqual({ precision: null, recall: 0 });
  // An extractor that calls every turn a preference: right exactly on the preference labels.
  const everything: Extractor = {
    name: "all",
    extract: (turns) =>
      turns.map((t, i) => ({
        kind: "preference",
        category: "fact",
        content: t.content,
        turns: [i],
        at: t.at,
      })),
  };
  const all = scoreExtractor(set, everything).by_kind.preference;
  const turns = set.sessions.reduce((n, s) => n + s.turns.length, 0);
  expect(all.extracted).toBe(turns);
  expect(all.recall).toBe(1);
  expect(all.correct).toBe(all.labelled);
});

test("the route part writes the sessions both ways and scores each system", async () => {
  const result = await evaluateRoute(labelledSet(1), "hash");
  expect(result.status).toBe("ok");
  for (const system of ["per-turn", "conversation", "conversation:extracted"] as const) {
    const current = result.systems![system].current;
    expect(current.questions).toBeGreaterThan(0);
    expect(current.hit_at_1).toBeGreaterThanOrEqual(0);
    expect(current.hit_at_1).toBeLessThanOrEqual(1);
  }
}, 60_000);

test("bench/results/eval-transcripts.json is of the current set, and docs/conversations.md quotes it", () => {
  const root = join(import.meta.dir, "..", "..");
  const report: TranscriptsReport = JSON.parse(
    readFileSync(join(root, "bench/results/eval-transcripts.json"), "utf8"),
  );
  const docs = readFileSync(join(root, "docs/conversations.md"), "utf8");
  const set = labelledSet();
  expect(report.dataset.turns).toBe(set.sessions.reduce((n, s) => n + s.turns.length, 0));
  expect(report.extractor).toEqual(scoreExtractor(set));
  for (const kind of EXTRACT_KINDS) {
    const s = report.extractor.by_kind[kind];
    const f = (x: number | null) => (x === null ? "—" : x.toFixed(3));
    expect(docs).toContain(`| ${kind} | ${s.labelled} | ${f(s.precision)} | ${f(s.recall)} |`);
  }
  const hash = report.route.find((r) => r.embedder === "hash")!;
  const current = hash.systems!["per-turn"].current;
  expect(docs).toContain(
    `| per-turn (baseline) | ${current.hit_at_1.toFixed(3)} | ${current.recall_at_5.toFixed(3)} |`,
  );
});
