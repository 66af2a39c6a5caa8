/**
 * `bun run eval --small` end to end, as a subprocess: the report's shape and sanity, not the
 * service's quality (the figures are whatever they are; only BM25 has a floor, measured on this
 * set, that catches a broken harness or set rather than a weaker ranking).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EvalReport } from "../../bench/eval/evaluate.ts";
import { METRICS } from "../../bench/eval/metrics.ts";

const CATEGORIES = ["multi-hop", "open-domain", "paraphrase", "single-hop", "temporal"];
/** BM25's recall@10 on the small set was 0.67 when measured; far below that means something broke. */
const BM25_RECALL_AT_10_FLOOR = 0.3;

const dir = mkdtempSync(join(tmpdir(), "eval-smoke-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function runSmall(): Promise<{ code: number; stdout: string; report: EvalReport; details: unknown }> {
  const out = join(dir, "eval.json");
  const detailsPath = join(dir, "details.json");
  const proc = Bun.spawn(
    [
      "bun",
      "run",
      "bench/eval/run.ts",
      "--small",
      "--embedders",
      "hash,no-such-embedder",
      "--out",
      out,
      "--details",
      detailsPath,
    ],
    { cwd: join(import.meta.dir, "..", ".."), stdout: "pipe", stderr: "pipe" },
  );
  const [stdout, code] = [await new Response(proc.stdout).text(), await proc.exited];
  return {
    code,
    stdout,
    report: JSON.parse(readFileSync(out, "utf8")),
    details: JSON.parse(readFileSync(detailsPath, "utf8")),
  };
}

describe("bun run eval --small", async () => {
  const { code, stdout, report, details } = await runSmall();

  test("exits 0 and prints a table per system", () => {
    expect(code).toBe(0);
    expect(stdout).toContain("bm25 (plain BM25 baseline)");
    expect(stdout).toContain("hash (service, MEMORY_RUNTIME_EMBEDDER=hash)");
  });

  test("describes the small set: 2 conversations, 150 questions in every category", () => {
    expect(report.dataset.name).toBe("memory-eval-v1 (small)");
    expect(report.dataset.conversations).toBe(2);
    expect(report.dataset.questions).toBe(150);
    expect(Object.keys(report.dataset.by_category).sort()).toEqual(CATEGORIES);
    expect(report.dataset.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(typeof report.date).toBe("string");
    expect(report.machine.cores).toBeGreaterThan(0);
  });

  test("scores BM25 and the hash embedder on every question, each metric in [0, 1], per category too", () => {
    const ok = report.systems.filter((s) => s.status === "ok");
    expect(ok.map((s) => s.name)).toEqual(["bm25", "hash"]);
    for (const system of ok) {
      expect(system.summary!.overall.questions).toBe(150);
      expect(Object.keys(system.summary!.by_category).sort()).toEqual(CATEGORIES);
      for (const averages of [system.summary!.overall, ...Object.values(system.summary!.by_category)]) {
        for (const metric of METRICS) {
          expect(averages[metric]).toBeGreaterThanOrEqual(0);
          expect(averages[metric]).toBeLessThanOrEqual(1);
        }
        // Finding every evidence turn is never easier than finding one; a hit in the top 5 is one in the top 10.
        expect(averages.all_evidence_at_10).toBeLessThanOrEqual(averages.recall_at_10);
        expect(averages.recall_at_5).toBeLessThanOrEqual(averages.recall_at_10);
      }
      expect(system.timings!.search_s).toBeGreaterThanOrEqual(0);
    }
    expect(ok[0]!.summary!.overall.recall_at_10).toBeGreaterThan(BM25_RECALL_AT_10_FLOOR);
  });

  test("an embedder the runtime refuses is skipped with the runtime's reason", () => {
    const skipped = report.systems.find((s) => s.name === "no-such-embedder")!;
    expect(skipped.status).toBe("skipped");
    expect(skipped.note).toContain("MEMORY_RUNTIME_EMBEDDER");
    expect(skipped.summary).toBeUndefined();
  });

  test("--details lists each system's ranked turn ids per question", () => {
    const answers = details as Record<string, { evidence: string[]; ranked: string[] }[]>;
    expect(Object.keys(answers)).toEqual(["bm25", "hash", "no-such-embedder"]);
    expect(answers.hash).toHaveLength(150);
    for (const answer of answers.hash!) {
      expect(answer.ranked.length).toBeLessThanOrEqual(10);
      for (const id of answer.ranked) expect(id).toMatch(/^D\d+:\d+$/);
    }
  });
});
