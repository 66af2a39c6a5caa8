/**
 * `BENCH_SCALE=1m bun run bench`: ONE tenant of an in-process runtime filled with 1,000,000
 * entries through its actor (`entry.createMany`, 1,000 a message, a few in flight), written to
 * bench/results/scale-1m.json under `scale_1m`:
 * - write_entries_per_s: the fill's rate (past 100,000 pending vectors the index inserts chunks
 *   into its graph on the write path, so this includes most of the graph build);
 * - index_build_s: the `index.flush` (all) after the fill: the vectors still pending then;
 * - search_p50_ms / search_p99_ms: through the actor as the HTTP route asks it, 3 rounds of 500;
 * - recall_at_10: the saved production index against an exact scan of the vault's vectors (500 queries);
 * - restart_s: the runtime stopped and created again on the same directory until a search
 *   answers (vault opened, index files loaded, BM25 rebuilt), 3 times;
 * - rss_mb: process.memoryUsage().rss after each restart and 20 searches (this process also
 *   holds what the previous runtime left to the allocator, so it overstates a fresh process).
 * RSS is printed every 10,000 entries during the fill, which stops cleanly (and is reported as
 * aborted) if the process nears the machine's memory or the fill exceeds BENCH_SCALE_MAX_MINUTES
 * (default 60). BENCH_SCALE_ENTRIES overrides the size (to try the path on fewer).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { type Figure, figuresJson, table } from "./report.ts";
import { inProcessSearch } from "./scenarios/in-process-search.ts";
import { machine, round, seconds } from "./stats.ts";

export async function scale1m(log: (line: string) => void): Promise<void> {
  const started = performance.now();
  const machineInfo = machine();
  const entries = Number(process.env.BENCH_SCALE_ENTRIES ?? 1_000_000);
  const maxMinutes = Number(process.env.BENCH_SCALE_MAX_MINUTES ?? 60);
  log(`scale: ${entries} entries in one tenant, through the tenant actor`);
  const r = await inProcessSearch({
    entries,
    rounds: 3,
    queries: 500,
    recallSamples: 1,
    recallQueries: 500,
    restarts: 3,
    maxFillSeconds: maxMinutes * 60,
    log,
  });
  const figures: Figure[] = [
    { key: "entries", runs: [r.entries] },
    { key: "write_entries_per_s", runs: [r.fill_entries_per_s] },
    { key: "index_build_s", runs: [r.index_build_s] },
    { key: "search_p50_ms", runs: r.search_p50_ms, target: { op: "<=", value: 1.0 } },
    { key: "search_p99_ms", runs: r.search_p99_ms, target: { op: "<=", value: 3.0 } },
    { key: "recall_at_10", runs: r.recall.recall_at_10, target: { op: ">=", value: 0.97 } },
    { key: "restart_s", runs: r.restart_s },
    { key: "rss_mb", runs: r.rss_mb_after_restart },
  ];
  const { top, runs, targets, pass } = figuresJson(figures);
  const wall = seconds(started);
  const out = {
    scale_1m: {
      ...top,
      ...(r.aborted ? { aborted: r.aborted } : {}),
      runs,
      targets,
      pass,
      details: {
        fill_s: r.fill_s,
        first_search_ms: r.first_search_ms,
        rss_mb_after_search: r.rss_mb_after_search,
        rss_during_fill: r.rss_during_fill,
        recall: r.recall,
      },
    },
    at: new Date().toISOString(),
    wall_s: wall,
    machine: machineInfo,
  };
  mkdirSync("bench/results", { recursive: true });
  const file = entries === 1_000_000 ? "bench/results/scale-1m.json" : "bench/results/tmp-scale.json";
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`\n${table(figures)}\n`);
  if (r.aborted) console.log(`the fill was aborted: ${r.aborted}`);
  console.log(`written to ${file}; wall time ${round(wall / 60, 1)} min`);
}
