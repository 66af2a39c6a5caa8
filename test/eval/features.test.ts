/**
 * The ablation's mechanism (`bun run eval --ablation`, bench/eval/features.ts): which systems a
 * run measures, the refusal of a feature not listed, and the table of each variant's change.
 */
import { describe, expect, test } from "bun:test";
import { ablationTable } from "../../bench/eval/ablation-report.ts";
import type { EvalReport, SystemResult } from "../../bench/eval/evaluate.ts";
import { FEATURES, featuresNamed, UnknownFeature, variantsOf } from "../../bench/eval/features.ts";
import type { Averages } from "../../bench/eval/metrics.ts";

describe("the features list", () => {
  test("names each feature once, each flipped by the environment or the search body", () => {
    const names = FEATURES.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    for (const f of FEATURES) {
      expect(f.name).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(["on", "off"]).toContain(f.default);
      expect(Object.keys({ ...f.env, ...f.controls }).length).toBeGreaterThan(0);
    }
    expect(names).toContain("rerank-builtin");
  });

  test("all of them by default, the ones named otherwise, and a name not listed is refused", () => {
    expect(featuresNamed(undefined)).toEqual([...FEATURES]);
    expect(featuresNamed(["rerank-builtin"]).map((f) => f.name)).toEqual(["rerank-builtin"]);
    expect(() => featuresNamed(["telepathy"])).toThrow(UnknownFeature);
    expect(() => featuresNamed(["telepathy"])).toThrow('no feature "telepathy" (known: ');
  });
});

describe("the variants of a run", () => {
  const off = { name: "entities", description: "", default: "on", controls: { entities: false } } as const;
  const on = {
    name: "rerank-builtin",
    description: "",
    default: "off",
    env: { MEMORY_RUNTIME_RERANKER: "builtin" },
  } as const;

  test("each embedder's default first, then one variant per feature flipped", () => {
    const variants = variantsOf(["hash", "static"], [off, on]);
    expect(variants.map((v) => v.name)).toEqual([
      "hash",
      "hash −entities",
      "hash +rerank-builtin",
      "static",
      "static −entities",
      "static +rerank-builtin",
    ]);
    expect(variants[1]).toEqual({
      name: "hash −entities",
      embedder: "hash",
      feature: { name: "entities", state: "off" },
      env: {},
      controls: { entities: false },
    });
    expect(variants[2]!.env).toEqual({ MEMORY_RUNTIME_RERANKER: "builtin" });
  });

  test("without --ablation, the embedders' defaults alone", () => {
    expect(variantsOf(["hash"]).map((v) => v.name)).toEqual(["hash"]);
  });
});

describe("the ablation table", () => {
  const averages = (r5: number): Averages => ({
    questions: 10,
    recall_at_5: r5,
    recall_at_10: 0.9,
    ndcg_at_10: 0.6,
    session_recall_at_5: 0.9,
    all_evidence_at_10: 0.8,
  });
  const system = (
    name: string,
    r5: number,
    p50: number,
    extra: Partial<SystemResult> = {},
  ): SystemResult => ({
    name,
    kind: "service",
    status: "ok",
    summary: { overall: averages(r5), by_category: { "single-hop": averages(r5) } },
    timings: { load_s: 1, search_s: 1, search_ms_p50: p50, search_ms_p95: p50, total_s: 2 },
    ...extra,
  });
  const report = (systems: SystemResult[]) => ({ systems }) as unknown as EvalReport;

  test("says each variant's change against its embedder's default, overall and per category", () => {
    const table = ablationTable(
      report([
        system("hash", 0.7, 1),
        system("hash +rerank-builtin", 0.75, 1.25, {
          embedder: "hash",
          feature: { name: "rerank-builtin", state: "on" },
        }),
      ]),
    );
    const rows = table.split("\n").filter((line) => line.startsWith("| hash"));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(
      /^\| hash \+rerank-builtin \| overall +\| \+0\.050 \| \+0\.000 .*\| \+0\.25 +\|$/,
    );
    expect(rows[1]).toContain("single-hop");
  });

  test("is empty for a run without variants", () => {
    expect(ablationTable(report([system("hash", 0.7, 1)]))).toBe("");
  });
});
