/**
 * `bun run bench`: the service and a bare Elysia route measured in the same run, on the same machine,
 * with the same load generator (autocannon). Figures are reported as ratios against the baseline.
 * BENCH_SECONDS (default 5) sets each load's duration; BENCH_FULL=0 skips the 100k-entry scenarios.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { TokenService } from "../src/http/tokens.ts";
import { OPERATOR_TENANT_ID } from "../src/models/common.ts";
import { systemClock } from "../src/runtime/clock.ts";
import { type LoadResult, latencies, load } from "./load.ts";
import { startProcess, startService, stop } from "./processes.ts";
import { inProcessSearch } from "./scenarios/in-process-search.ts";
import { benchSearchIndex } from "./scenarios/search-index.ts";
import { corpus, fillOverHttp } from "./search-fill.ts";

const SECRET = "bench-secret-bench-secret-bench-secret-0123456789";
const full = process.env.BENCH_FULL !== "0";

async function main() {
  const bare = await startProcess("bench/bare-server.ts", "/ping");
  const service = await startService(SECRET);
  const results: Record<string, unknown> = {
    at: new Date().toISOString(),
    machine: { cores: navigator.hardwareConcurrency },
  };
  try {
    const admin = await adminToken();
    const tenant = await createTenant(service.url, admin, "bench");
    const auth = { authorization: `Bearer ${tenant.token}` };
    const loads: LoadResult[] = [];
    loads.push(await load({ name: "bare GET /ping (baseline)", url: `${bare.url}/ping` }));
    loads.push(await load({ name: "service GET /healthz (no auth)", url: `${service.url}/healthz` }));
    loads.push(
      await load({ name: "service GET /tenants/me (JWT)", url: `${service.url}/tenants/me`, headers: auth }),
    );
    loads.push(
      await load({
        name: "service POST /memory/facts (64 conns, durable)",
        url: `${service.url}/memory/facts`,
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ content: "bench fact [<id>] about billing latency", tags: ["bench"] }),
        connections: 64,
        uniqueBodies: true,
      }),
    );
    // The write load leaves vectors pending; let the service insert them before measuring reads.
    await indexSettled(service.url, tenant);
    const [factId] = await fillOverHttp(service.url, tenant.token, ["a fact to read back by id"], 1);
    loads.push(await load({ name: "bare GET /entry (JSON baseline)", url: `${bare.url}/entry` }));
    loads.push(
      await load({
        name: "service GET /memory/facts/{id}",
        url: `${service.url}/memory/facts/${factId}`,
        headers: auth,
      }),
    );
    results.http = loads;
    results.ratios = ratios(loads);
    results.search_http = await httpSearch(service.url, admin);
    results.search_in_process = await inProcessSearch(full ? [10_000, 100_000] : [10_000]);
    results.index_only = [];
    for (const n of full ? [10_000, 100_000] : [10_000])
      (results.index_only as unknown[]).push(await benchSearchIndex(n));
  } finally {
    await stop(service);
    await stop(bare);
  }
  mkdirSync("bench/results", { recursive: true });
  writeFileSync("bench/results/latest.json", `${JSON.stringify(results, null, 2)}\n`);
  printTable(results);
}

async function adminToken(): Promise<string> {
  const tokens = new TokenService(new TextEncoder().encode(SECRET), systemClock);
  return (
    await tokens.mint({
      sub: "bench",
      tenantId: OPERATOR_TENANT_ID,
      roles: [],
      admin: true,
      ttlSeconds: 7200,
    })
  ).token;
}

async function createTenant(
  url: string,
  admin: string,
  name: string,
): Promise<{ tenant_id: string; token: string }> {
  const res = await fetch(`${url}/admin/tenants`, {
    method: "POST",
    headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
    body: JSON.stringify({ name: `${name}-${Date.now()}` }),
  });
  if (res.status !== 201) throw new Error(`create tenant: ${res.status} ${await res.text()}`);
  return (await res.json()) as { tenant_id: string; token: string };
}

/** Search latency over HTTP (sequential requests) at 10k and, with BENCH_FULL, 100k entries. */
async function httpSearch(url: string, admin: string) {
  const tenant = await createTenant(url, admin, "search");
  const sizes = full ? [10_000, 100_000] : [10_000];
  const { documents, queries } = corpus(sizes[sizes.length - 1]!, 300, 7);
  const out: Array<Record<string, number>> = [];
  let filled = 0;
  for (const size of sizes) {
    const t = performance.now();
    await fillOverHttp(url, tenant.token, documents.slice(filled, size));
    const fillSeconds = (performance.now() - t) / 1000;
    const writesPerSecond = Math.round((size - filled) / fillSeconds);
    filled = size;
    await indexSettled(url, tenant);
    const search = (i: number) =>
      fetch(`${url}/memory/search`, {
        method: "POST",
        headers: { authorization: `Bearer ${tenant.token}`, "content-type": "application/json" },
        body: JSON.stringify({ query: queries[i % queries.length], limit: 10 }),
      }).then((r) => r.json());
    out.push({ entries: size, fill_writes_per_s: writesPerSecond, ...(await latencies(300, search)) });
  }
  return out;
}

/** Waits until the tenant's actor has moved every pending vector into the graph. */
async function indexSettled(url: string, tenant: { tenant_id: string; token: string }): Promise<void> {
  for (;;) {
    const res = await fetch(`${url}/tenants/${tenant.tenant_id}/healthz`, {
      headers: { authorization: `Bearer ${tenant.token}` },
    });
    const health = (await res.json()) as { index: { pending: number } };
    if (health.index.pending === 0) return;
    await Bun.sleep(250);
  }
}

function ratios(loads: LoadResult[]) {
  const by = (name: string) => loads.find((l) => l.name.startsWith(name))?.rps ?? 0;
  const bare = by("bare GET /ping");
  const bareJson = by("bare GET /entry");
  return {
    healthz_vs_bare: round(by("service GET /healthz") / bare),
    authenticated_vs_bare: round(by("service GET /tenants/me") / bare),
    get_by_id_vs_bare_json: round(by("service GET /memory/facts/") / bareJson),
    writes_per_s: by("service POST /memory/facts"),
  };
}

function printTable(results: Record<string, unknown>) {
  console.log("\nHTTP (autocannon)");
  console.table(
    (results.http as LoadResult[]).map((l) => ({
      scenario: l.name,
      "req/s": l.rps,
      p50_ms: l.p50_ms,
      p99_ms: l.p99_ms,
      errors: l.errors + l.non2xx,
    })),
  );
  console.log("Ratios", results.ratios);
  console.log("Search over HTTP (sequential)");
  console.table(results.search_http);
  console.log("Search in-process (through the tenant actor)");
  console.table(results.search_in_process);
  console.log(
    "Index only (hash embedder, usearch graph + BM25; recall@10 of the graph against exact search)",
  );
  console.table(results.index_only);
  console.log("written to bench/results/latest.json");
}

const round = (x: number) => Math.round(x * 100) / 100;

await main();
