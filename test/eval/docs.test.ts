/**
 * The committed results describe the set the generator makes now, and docs/eval.md quotes them: a
 * change to the set or a new run without updating the other shows here.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { evalSetJson } from "../../bench/eval/dataset/generate-set.ts";
import type { EvalReport } from "../../bench/eval/evaluate.ts";

const ROOT = join(import.meta.dir, "..", "..");
const report: EvalReport = JSON.parse(readFileSync(join(ROOT, "bench/results/eval.json"), "utf8"));
const docs = readFileSync(join(ROOT, "docs/eval.md"), "utf8");

describe("bench/results/eval.json and docs/eval.md", () => {
  test("the results are of the current evaluation set, whole", () => {
    expect(report.dataset.sha256).toBe(evalSetJson().sha256);
    expect(report.dataset.name).toBe("memory-eval-v1");
    expect(report.dataset.questions).toBe(1500);
  });

  test("the docs name that version of the set and quote each system's overall figures", () => {
    expect(docs).toContain(report.dataset.sha256!.slice(0, 8));
    const ok = report.systems.filter((s) => s.status === "ok");
    // The baselines always; the static embedder and the tiers' two moments joined them (issue 30).
    expect(ok.map((s) => s.name)).toEqual(expect.arrayContaining(["bm25", "hash", "local"]));
    for (const system of ok) {
      const o = system.summary!.overall;
      const row = [o.recall_at_5, o.recall_at_10, o.ndcg_at_10, o.session_recall_at_5, o.all_evidence_at_10]
        .map((v) => v.toFixed(3))
        .join(" | ");
      expect(docs).toContain(`| ${row} |`);
    }
  });
});
