/**
 * `bun run fuzz`: the fuzz campaign (campaign.ts) against a real server process: first the contract
 * checks over every operation of the served document (contract-check.ts: positive acceptance and
 * negative rejection), then the random requests. Environment: `FUZZ_REQUESTS` (default 10000),
 * `FUZZ_CONTRACT_PER_OP` (default 60: positive and as many negative requests per operation),
 * `FUZZ_SEED` (default random; printed, to replay a run), `FUZZ_RSS_GROWTH_MB` (default 384: the
 * bound on the server's RSS growth), `FUZZ_CONCURRENCY` (default 8). Prints the figures (a table
 * per operation for the contract checks), writes them to test-artifacts/fuzz-latest.json, and
 * exits 1 on any failure.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stopChildrenWithMe } from "../../scripts/children.ts";
import { parseCli } from "../../scripts/cli.ts";
import { ROOT } from "../helpers/spawn.ts";
import { type Figures, runCampaign } from "./campaign.ts";
import { contractReport } from "./contract-report.ts";

parseCli({
  usage: `Usage: bun run fuzz

The fuzz campaign against a real server process (a child on a free loopback port, stopped with the
fuzz, also on Ctrl-C, SIGTERM, SIGHUP): the contract checks over every operation of the served
document, then random requests. Writes test-artifacts/fuzz-latest.json; exits 1 on any failure.
Takes no options but -h, --help; the environment chooses:

  FUZZ_REQUESTS=N          random requests (default: 10000)
  FUZZ_CONTRACT_PER_OP=N   positive and as many negative requests per operation (default: 60)
  FUZZ_SEED=N              the seed (default: random; printed, to replay a run)
  FUZZ_RSS_GROWTH_MB=N     the bound on the server's RSS growth (default: 384)
  FUZZ_CONCURRENCY=N       requests in flight (default: 8)
`,
});
stopChildrenWithMe();

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isSafeInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, not ${raw}`);
  return value;
}

function print(f: Figures): void {
  const growth = Math.round((f.rssMiB.peak - f.rssMiB.start) * 10) / 10;
  const statuses = Object.entries(f.byStatus)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([s, n]) => `${s}: ${n}`)
    .join(", ");
  const kinds = Object.entries(f.byKind)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
  console.log(`
fuzz: seed ${f.seed}, ${f.tried} requests tried in ${f.seconds} s (${kinds})
  operations covered: ${f.operations.covered}/${f.operations.total}${f.operations.missing.length ? ` (missing: ${f.operations.missing.join(", ")})` : ""}
  statuses: ${statuses}
  5xx: ${f.fiveXX}, stack traces: ${f.stackTraces}, planted secrets seen: ${f.secretLeaks}, timeouts: ${f.timeouts}
  closed without an answer (refused framing): ${f.closedWithoutAnswer}
  answered by Bun's HTTP layer before the app: ${JSON.stringify(f.httpLayer)}
  answers the OpenAPI document does not allow: ${f.nonConformant.count}
  health checks: ${f.health.checks}, failed: ${f.health.failures}${f.health.serverExited ? " (server exited)" : ""}
  server RSS: start ${f.rssMiB.start} MiB, peak ${f.rssMiB.peak} MiB, end ${f.rssMiB.end} MiB (growth ${growth} MiB, bound ${f.rssMiB.limitGrowth} MiB)
    of which private (RssAnon): start ${f.rssMiB.anonStart} MiB, peak ${f.rssMiB.anonPeak} MiB, end ${f.rssMiB.anonEnd} MiB; mapped files at the end ${f.rssMiB.fileEnd} MiB`);
  if (f.contract) console.log(contractReport(f.contract));
  for (const e of f.nonConformant.examples) console.log(`  not in the document: ${e}`);
  for (const e of f.failures)
    console.log(`  FAIL ${e.kind} ${e.operation} → ${e.status}: ${e.detail}\n    ${e.request}`);
  console.log(f.ok ? "fuzz: PASS" : `fuzz: FAIL (replay with FUZZ_SEED=${f.seed})`);
}

const figures = await runCampaign({
  requests: intFromEnv("FUZZ_REQUESTS", 10_000),
  seed: intFromEnv("FUZZ_SEED", Math.floor(Math.random() * 2 ** 31) + 1),
  rssGrowthLimitMiB: intFromEnv("FUZZ_RSS_GROWTH_MB", 384),
  concurrency: intFromEnv("FUZZ_CONCURRENCY", 8),
  contract: {
    positivePerOperation: intFromEnv("FUZZ_CONTRACT_PER_OP", 60),
    negativePerOperation: intFromEnv("FUZZ_CONTRACT_PER_OP", 60),
  },
  log: (line) => console.log(line),
});
print(figures);
const artifacts = join(ROOT, "test-artifacts");
mkdirSync(artifacts, { recursive: true });
writeFileSync(join(artifacts, "fuzz-latest.json"), `${JSON.stringify(figures, null, 2)}\n`);
process.exit(figures.ok ? 0 : 1);
