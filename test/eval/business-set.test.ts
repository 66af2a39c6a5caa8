/**
 * The business set of `bun run eval` (bench/eval/business/): the same on every run, every gold
 * entry one the timeline writes, the reordered deliveries it promises, and the scoring rules.
 */
import { describe, expect, test } from "bun:test";
import { businessQuestions, KINDS } from "../../bench/eval/business/questions.ts";
import { scoreBusiness } from "../../bench/eval/business/score.ts";
import type { EntryMeta } from "../../bench/eval/business/timeline.ts";
import { timelineOf } from "../../bench/eval/business/timeline.ts";
import { businessWorld } from "../../bench/eval/business/world.ts";

const world = businessWorld();
const steps = timelineOf(world);
const questions = businessQuestions(world, steps);

describe("the business set", () => {
  test("is generated the same way every time", () => {
    expect(JSON.stringify(timelineOf(businessWorld()))).toBe(JSON.stringify(steps));
  });

  test("has questions of all six kinds, each gold entry written by a step", () => {
    const keys = new Set(steps.map((s) => s.key));
    for (const kind of KINDS) expect(questions.filter((q) => q.kind === kind).length).toBeGreaterThan(5);
    for (const q of questions) for (const key of [...q.gold, ...(q.stale ?? [])]) expect(keys).toContain(key);
  });

  test("one deal in five has a stage change delivered after the next one, and retried", () => {
    const deals = world.companies.flatMap((c) => c.deals);
    const late = deals.filter((d) => d.late !== undefined);
    expect(late.length).toBe(deals.length / 5);
    const order = new Map(steps.map((s, i) => [s.key, i]));
    for (const d of late) {
      const k = d.late!;
      expect(order.get(`deal:${d.id}:${k}`)!).toBeGreaterThan(order.get(`deal:${d.id}:${k + 1}`)!);
      expect(order.get(`deal:${d.id}:${k}:retry`)!).toBeGreaterThan(order.get(`deal:${d.id}:${k}`)!);
    }
  });

  test("the corrections come after every other step", () => {
    const first = steps.findIndex((s) => s.kind === "write" && s.phase === 2);
    expect(first).toBeGreaterThan(0);
    expect(steps.slice(first).every((s) => s.kind === "write" && s.phase === 2)).toBe(true);
  });
});

describe("scoreBusiness", () => {
  const meta = (source: EntryMeta["source"]): EntryMeta => ({ company: 0, source, role: "x" });
  const metas: Record<string, EntryMeta> = { a: meta("payments"), b: meta("helpdesk"), c: meta("agent") };

  test("a stale entry above the answer counts; below it does not", () => {
    const q = { kind: "current_state" as const, question: "", company: 0, gold: ["new"], stale: ["old"] };
    expect(scoreBusiness(q, ["old", "new"], () => undefined)).toEqual({
      hit_at_1: 0,
      recall_at_5: 1,
      recall_at_10: 1,
      stale_above: 1,
    });
    expect(scoreBusiness(q, ["new", "old"], () => undefined).stale_above).toBe(0);
  });

  test("two-source questions need an entry of each group; what-do-we-know counts entries and sources", () => {
    const two = {
      kind: "two_source" as const,
      question: "",
      company: 0,
      gold: ["a", "b"],
      groups: [["a"], ["b"]],
    };
    expect(scoreBusiness(two, ["a", "x"], (k) => metas[k]).all_gold_at_10).toBe(0);
    expect(scoreBusiness(two, ["x", "b", "a"], (k) => metas[k]).all_gold_at_10).toBe(1);
    const know = { kind: "know_about" as const, question: "", company: 0, gold: ["a", "b", "c"] };
    const scores = scoreBusiness(know, ["a", "x", "c"], (k) => metas[k]);
    expect(scores.entries_at_10).toBeCloseTo(2 / 3);
    expect(scores.sources_at_10).toBeCloseTo(2 / 3);
  });
});
