import { mkdirSync, writeFileSync } from "node:fs";
import { type Figure, figuresJson, table } from "./report.ts";
import { serviceSearch } from "./scenarios/service-search.ts";
import { machine, seconds } from "./stats.ts";

/**
 * `BENCH_PART=service bun run bench`: only the service's part (3 bulk loads through the batch
 * route, the first search after each, HTTP search, restarts, RSS), for a quick A/B of the write
 * and cold-search paths; 100k entries (10k with BENCH_FULL=0), written to
 * bench/results/tmp-service.json with the keys of latest.json it measures.
 */
export async function serviceOnly(log: (line: string) => void): Promise<void> {
  const started = performance.now();
  const machineInfo = machine();
  const full = process.env.BENCH_FULL !== "0";
  const served = await serviceSearch({
    entries: full ? 100_000 : 10_000,
    rounds: 3,
    queries: 500,
    restarts: 3,
    log,
  });
  const label = full ? "100k" : "10k";
  const figures: Figure[] = [
    { key: "batch_entries_per_s", runs: served.batch_entries_per_s, target: { op: ">=", value: 100_000 } },
    {
      key: "first_search_after_bulk_ms",
      runs: served.first_search_after_bulk_ms,
      target: { op: "<=", value: 50 },
    },
    { key: `http_search_p99_ms_${label}`, runs: served.http_search_p99_ms, target: { op: "<=", value: 5.0 } },
    { key: `restart_ready_s_${label}`, runs: served.restart_ready_s, target: { op: "<=", value: 2.0 } },
    { key: `rss_mb_${label}`, runs: served.rss_mb, target: { op: "<=", value: 400 } },
  ];
  const file = "bench/results/tmp-service.json";
  const out = {
    ...figuresJson(figures),
    at: new Date().toISOString(),
    wall_s: seconds(started),
    machine: machineInfo,
    details: served,
  };
  mkdirSync("bench/results", { recursive: true });
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`\n${table(figures)}\n`);
  console.log(`written to ${file}; wall time ${Math.round(seconds(started))} s`);
}
