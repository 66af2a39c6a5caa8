/**
 * `bun run bench/search-stages.ts`: what the query-time stages cost a search — the time window
 * (src/search/controls/time/) and the episode context (src/search/controls/context/) — on a tenant of 10,000
 * entries, through `POST /memory/search` handled by the runtime's app in this process (no socket).
 * The same queries are asked in four configurations, interleaved query by query (the one asked
 * first turning) so that the machine's load and warm caches weigh on each alike: both stages on (the default), each off, both off. Half of
 * the queries carry a time expression ("… last May", "… in 2023"), so the window's candidates
 * and said-time readings are in the figures.
 *
 *   bun run bench/search-stages.ts                    # hash, 10,000 entries, 400 queries
 *   bun run bench/search-stages.ts --embedder static --entries 10000 --queries 400
 */
import { parseArgs } from "node:util";
import { syntheticCorpus } from "../test/search/vector/synthetic-corpus.ts";
import { ServiceClient } from "./eval/service-client.ts";
import { startRuntime } from "./eval/service-retriever.ts";
import { median, round } from "./stats.ts";

const { values } = parseArgs({
  options: {
    embedder: { type: "string", default: "hash" },
    entries: { type: "string", default: "10000" },
    queries: { type: "string", default: "400" },
  },
});
const entries = Number(values.entries);
const queries = Number(values.queries);

const CONFIGS: Record<string, Record<string, unknown>> = {
  default: {},
  "time off": { time_expressions: false },
  "context off": { context: false },
  "both off": { time_expressions: false, context: false },
};
const TIME_WORDS = ["last May", "in 2023", "two weeks ago", "since June", "yesterday", "in March 2022"];
const DAY_MS = 86_400_000;

const { started, refused } = await startRuntime(values.embedder!);
if (!started) throw new Error(refused);
const client = new ServiceClient(started.runtime.app);
try {
  const { token } = await client.expect<{ token: string }>([201], "POST", "/admin/tenants", started.admin, {
    name: "search stages",
  });
  const corpus = syntheticCorpus(entries, queries, 7);
  // Spread over three years, in sessions of 20 entries sharing a tag and a day.
  const start = Date.parse("2021-01-01T00:00:00Z");
  for (let i = 0; i < entries; i += 1000) {
    const batch = corpus.documents.slice(i, i + 1000).map((content, j) => {
      const n = i + j;
      const session = Math.floor(n / 20);
      const validFrom = start + Math.floor((session * 3 * 365 * DAY_MS) / (entries / 20)) + (n % 20) * 60_000;
      return { content, tags: [`session-${session}`], valid_from: new Date(validFrom).toISOString() };
    });
    await client.expect([200, 201], "POST", "/memory/facts/batch", token, { entries: batch });
  }
  const asked = corpus.queries.map((q, i) => (i % 2 ? `${q} ${TIME_WORDS[i % TIME_WORDS.length]}` : q));
  // Per configuration, the queries without a time expression and those with one.
  const times = new Map(
    Object.keys(CONFIGS).map((name) => [name, { plain: [] as number[], timed: [] as number[] }]),
  );
  const search = async (query: string, controls: Record<string, unknown>) => {
    const t0 = performance.now();
    await client.expect([200], "POST", "/memory/search", token, { query, limit: 10, ...controls });
    return performance.now() - t0;
  };
  for (const query of asked.slice(0, 50)) await search(query, {}); // warm-up
  // The first search of a text pays for its BM25 accumulation, which the next ones of the same
  // text reuse (lexical-index.ts): the configuration asked first turns with each query.
  const configs = Object.entries(CONFIGS);
  for (const [i, query] of asked.entries())
    for (let k = 0; k < configs.length; k++) {
      const [name, controls] = configs[(i + k) % configs.length]!;
      times.get(name)![i % 2 ? "timed" : "plain"].push(await search(query, controls));
    }
  const p99 = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.floor(ms.length * 0.99)] ?? Number.NaN;
  const figures = Object.fromEntries(
    [...times].map(([name, { plain, timed }]) => [
      name,
      {
        p50_ms: round(median([...plain, ...timed]), 3),
        p99_ms: round(p99([...plain, ...timed]), 3),
        plain_p50_ms: round(median(plain), 3),
        timed_p50_ms: round(median(timed), 3),
      },
    ]),
  );
  console.log(JSON.stringify({ embedder: values.embedder, entries, queries, figures }, null, 2));
} finally {
  await started.close();
}
