/**
 * Where an in-process search's time goes, by stage. Two steps:
 *
 *   bun --cpu-prof --cpu-prof-dir=/tmp/search-prof bench/search-profile.ts run 100000 6
 *   bun bench/search-profile.ts read /tmp/search-prof
 *
 * `run` is the bench's in-process search scenario (bench/scenarios/in-process-search.ts: a tenant
 * filled through its actor, flushed, then rounds of 500 sequential `SearchService.search` calls)
 * and prints its p50/p99/recall. `read` takes the newest profile of the directory, keeps the
 * samples under `searchHybrid` (src/search/fusion/hybrid-search.ts) and sums their time by stage,
 * named from the frames between it and the sample: the graph walk, the rescoring of its candidates
 * from the rows, BM25, the filter, fusion. The time outside `searchHybrid` (actor hop, embedding the
 * query, the fill) is not split: the per-search figure is `searchHybrid`'s share of the p50.
 */
import { readdirSync, readFileSync } from "node:fs";
import { inProcessSearch } from "./scenarios/in-process-search.ts";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string };
  children?: number[];
}

/** The first frame (outermost first) that names a stage decides it. */
const STAGES: Array<[stage: string, frames: string[]]> = [
  ["vector walk (usearch)", ["searchGraph", "searchGraphFiltered", "graphCandidates"]],
  ["vector tail scan", ["searchTail", "scanRows"]],
  ["vector rescoring", ["rescored"]],
  ["lexical (BM25)", ["prepare", "accumulate", "drain"]],
  ["fusion", ["fuse"]],
  ["filter (visibility)", ["accepts", "passes", "(anon)"]],
];

function stageOf(frames: string[]): string {
  for (const frame of frames) for (const [stage, names] of STAGES) if (names.includes(frame)) return stage;
  return "other (in searchHybrid)";
}

function read(dir: string): void {
  const file = readdirSync(dir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .sort()
    .at(-1);
  if (!file) throw new Error(`no .cpuprofile in ${dir}`);
  const profile = JSON.parse(readFileSync(`${dir}/${file}`, "utf8")) as {
    nodes: ProfileNode[];
    samples: number[];
    timeDeltas: number[];
  };
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byStage = new Map<string, number>();
  let inSearch = 0;
  let all = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    all += us;
    const frames: string[] = []; // innermost first
    for (let c: number | undefined = id; c !== undefined; c = parent.get(c))
      frames.push(nodes.get(c)!.callFrame.functionName || "(anon)");
    const root = frames.indexOf("searchHybrid");
    if (root < 0) return;
    inSearch += us;
    const stage = stageOf(frames.slice(0, root).reverse());
    byStage.set(stage, (byStage.get(stage) ?? 0) + us);
  });
  console.log(`searchHybrid: ${Math.round(inSearch / 1e3)} ms of ${Math.round(all / 1e3)} ms profiled`);
  for (const [stage, us] of [...byStage].sort((a, b) => b[1] - a[1]))
    console.log(`${(Math.round((1000 * us) / inSearch) / 10).toFixed(1).padStart(6)}%  ${stage}`);
}

async function run(entries: number, rounds: number): Promise<void> {
  const r = await inProcessSearch({
    entries,
    rounds,
    queries: 500,
    recallSamples: 1,
    recallQueries: 200,
    restarts: 0,
    maxFillSeconds: 600,
    log: (line) => console.error(line),
  });
  const { search_p50_ms: p50, search_p99_ms: p99, recall } = r;
  console.log(JSON.stringify({ entries, p50_ms: p50, p99_ms: p99, recall_at_10: recall.recall_at_10 }));
}

const [mode, arg1, arg2] = process.argv.slice(2);
if (mode === "read") read(arg1 ?? "/tmp/search-prof");
else if (mode === "run") await run(Number(arg1 ?? 100_000), Number(arg2 ?? 3));
else throw new Error("usage: bench/search-profile.ts run [entries] [rounds] | read <profile dir>");
