/**
 * The ablation's table (`bun run eval --ablation`): each variant beside its embedder's default
 * configuration, as the change of every figure, overall and per category, and of search latency.
 */
import type { EvalReport, SystemResult } from "./evaluate.ts";
import { type Averages, METRICS } from "./metrics.ts";
import { markdown } from "./report.ts";

const signed = (x: number, digits = 3) => `${x >= 0 ? "+" : ""}${x.toFixed(digits)}`;

const deltas = (a: Averages, base: Averages) => METRICS.map((m) => signed(a[m] - base[m]));

/** One row per variant and scope (overall, then each category): the change against the default. */
function rows(variant: SystemResult, base: SystemResult): string[][] {
  const v = variant.summary!;
  const b = base.summary!;
  const latency = signed(variant.timings!.search_ms_p50 - base.timings!.search_ms_p50, 2);
  return [
    [variant.name, "overall", ...deltas(v.overall, b.overall), latency],
    ...Object.entries(v.by_category).flatMap(([category, a]) =>
      b.by_category[category] ? [[variant.name, category, ...deltas(a, b.by_category[category]!), ""]] : [],
    ),
  ];
}

/** Empty when the run has no variant with a feature flipped (no `--ablation`). */
export function ablationTable(report: EvalReport): string {
  const ok = report.systems.filter((s) => s.status === "ok" && s.summary && s.timings);
  const table = ok.flatMap((variant) => {
    const base = variant.feature && ok.find((s) => s.name === variant.embedder && !s.feature);
    return base ? rows(variant, base) : [];
  });
  if (table.length === 0) return "";
  const header = ["variant", "scope", "ΔR@5", "ΔR@10", "ΔNDCG@10", "Δsession R@5", "Δall evidence @10"];
  return [
    "ablation: each variant against its embedder's default",
    markdown([[...header, "Δp50 ms"], ...table]),
  ].join("\n");
}
