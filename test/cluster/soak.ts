/**
 * `bun run soak:cluster`: the cluster's figures and its long kill -9 run, in one go, on loopback
 * (one nats-server, three runtime processes):
 *   1. forwarded vs local request latency and throughput (GET of one entry, 64 in flight);
 *   2. webhook intake through the stream: deliveries accepted/s at a non-owner and applied/s;
 *   3. SOAK_CYCLES (default 5) cycles of kill -9 of one node (each in turn) during
 *      writes and deliveries, each followed by its restart and rebalance; after each, every
 *      acknowledged write and delivery must be present exactly once on every node.
 * SOAK_SNAPSHOT_RECORDS sets the nodes' periodic snapshot threshold (snapshots and purges during the
 * cycles). Parts 1 and 2 run SOAK_FIGURE_ROUNDS times (default 3; local and forwarded back to back in
 * each round, a fresh tenant for each intake round) and report the medians: the forwarded/local
 * throughput ratio and the intake rate (issue 21's cluster figures), written with their runs to
 * bench/results/cluster-soak.json (bench/cluster-figures.ts). Prints every figure as JSON and writes
 * them to test-artifacts/cluster-figures.json. Exit 1 on loss.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ClusterRound, writeClusterFigures } from "../../bench/cluster-figures.ts";
import { stopChildrenWithMe } from "../../scripts/children.ts";
import { parseCli } from "../../scripts/cli.ts";
import { partitionOf } from "../../src/cluster/partition.ts";
import { STANDARD_SECRET, standardSender } from "../fakes/senders/standard.ts";
import {
  type ClusterNodeProcess,
  clusterView,
  startTestCluster,
  type TestCluster,
  waitForSettled,
} from "../helpers/cluster-processes.ts";
import { pollUntil } from "../helpers/poll.ts";
import { adminTokenFor, httpCall, killHard } from "../helpers/server-process.ts";
import { ROOT } from "../helpers/spawn.ts";

parseCli({
  usage: `Usage: bun run soak:cluster

The cluster's figures and its long kill -9 run on loopback: one nats-server and three runtime
nodes (children on free ports, stopped with the soak, also on Ctrl-C, SIGTERM, SIGHUP); forwarded
vs local latency and throughput, webhook intake through the stream, then kill -9 cycles with
every acknowledged write and delivery checked on every node. Writes
test-artifacts/cluster-figures.json and bench/results/cluster-soak.json; exits 1 on loss. Takes
no options but -h, --help; the environment chooses:

  SOAK_CYCLES=N             kill -9 cycles (default: 5)
  SOAK_LOAD_REQUESTS=N      requests per latency load (default: 4000)
  SOAK_INTAKE_EVENTS=N      webhook events per intake round (default: 1000)
  SOAK_ROUND_WRITES=N       writes per kill cycle (default: 30)
  SOAK_FIGURE_ROUNDS=N      rounds of the figures (default: 3)
  SOAK_SNAPSHOT_RECORDS=N   the nodes' periodic snapshot threshold
`,
});
stopChildrenWithMe();

const SECRET = "cluster-soak-secret-of-at-least-32-bytes-long!";
const CYCLES = Number(process.env.SOAK_CYCLES ?? 5);
const LOAD_REQUESTS = Number(process.env.SOAK_LOAD_REQUESTS ?? 4000);
const INTAKE_EVENTS = Number(process.env.SOAK_INTAKE_EVENTS ?? 1000);
const ROUND_WRITES = Number(process.env.SOAK_ROUND_WRITES ?? 30);
const SNAPSHOT_RECORDS = process.env.SOAK_SNAPSHOT_RECORDS;
const FIGURE_ROUNDS = Number(process.env.SOAK_FIGURE_ROUNDS ?? 3);
const IN_FLIGHT = 64;
const ATTEMPTS = 15;

interface Tenant {
  id: string;
  token: string;
}

const figures: Record<string, unknown> = {};
let failures = 0;
const fail = (why: string) => {
  failures++;
  console.error(`LOSS/FAILURE: ${why}`);
};

/** Runs `total` calls with `inFlight` at a time; latencies in ms and the wall time. */
async function load(total: number, inFlight: number, call: (i: number) => Promise<boolean>) {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < total) {
        const i = next++;
        const t0 = performance.now();
        if (!(await call(i).catch(() => false))) errors++;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]! * 100) / 100;
  return {
    requests: total,
    errors,
    per_second: Math.round(total / seconds),
    p50_ms: at(0.5),
    p99_ms: at(0.99),
  };
}

async function createTenant(base: string, admin: string, name: string): Promise<Tenant> {
  const created = await httpCall(base, "POST", "/admin/tenants", { token: admin, body: { name } });
  if (created.status !== 201) throw new Error(`tenant creation: ${created.status}`);
  return { id: created.body.tenant_id, token: created.body.token };
}

function deliveryBody(tag: string) {
  return JSON.stringify({
    type: "user.created",
    timestamp: "2026-11-21T09:59:00.000Z",
    data: { id: tag, description: `delivery ${tag}` },
  });
}
const deliveryContent = (tag: string) => `user.created happened (${tag}): delivery ${tag}.`;

async function deliver(base: string, tenant: Tenant, tag: string): Promise<number | undefined> {
  const url = `${base}/webhooks/standard/${tenant.id}`;
  const signed = await standardSender.sign(deliveryBody(tag), { now: Date.now(), url });
  const answer = await fetch(url, { method: "POST", headers: signed.headers, body: signed.body }).catch(
    () => undefined,
  );
  return answer?.status;
}

async function contents(base: string, tenant: Tenant): Promise<string[]> {
  const all: string[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
    const page = await httpCall(base, "GET", `/memory/facts?limit=500${query}`, { token: tenant.token });
    if (page.status !== 200) throw new Error(`list: ${page.status}`);
    for (const item of page.body.items) all.push(item.content);
    cursor = page.body.next_cursor;
  } while (cursor);
  return all;
}

async function measureForwarding(cluster: TestCluster, admin: string) {
  const [a, b] = cluster.nodes as [ClusterNodeProcess, ClusterNodeProcess];
  const owners = (await clusterView(a)).owners;
  let tenant: Tenant;
  do tenant = await createTenant(a.server.base, admin, `Load ${Math.random()}`);
  while (owners[partitionOf(tenant.id)] !== a.nodeId);
  const written = await httpCall(a.server.base, "POST", "/memory/facts", {
    token: tenant.token,
    body: { content: "load" },
  });
  const path = `/memory/facts/${written.body.id}`;
  const get = (base: string) => async () =>
    (await fetch(base + path, { headers: { authorization: `Bearer ${tenant.token}` } })).status === 200;
  await load(200, 16, get(b.server.base)); // warm-up
  const local_get = await load(LOAD_REQUESTS, IN_FLIGHT, get(a.server.base));
  const forwarded_get = await load(LOAD_REQUESTS, IN_FLIGHT, get(b.server.base));
  console.log(JSON.stringify({ local_get, forwarded_get }));
  return { local_get, forwarded_get };
}

async function measureIntake(cluster: TestCluster, admin: string) {
  const [a, b] = cluster.nodes as [ClusterNodeProcess, ClusterNodeProcess];
  const owners = (await clusterView(a)).owners;
  let tenant: Tenant;
  do tenant = await createTenant(a.server.base, admin, `Intake ${Math.random()}`);
  while (owners[partitionOf(tenant.id)] !== a.nodeId);
  await cluster.setSecrets(tenant.id, { STANDARD_WEBHOOK_SECRET: STANDARD_SECRET }, admin);
  const started = performance.now();
  const accepted = await load(INTAKE_EVENTS, 32, async (i) => {
    const status = await deliver(b.server.base, tenant, `intake-${i}`);
    return status === 200 || status === 202;
  });
  await pollUntil(
    async () => (await contents(a.server.base, tenant)).length,
    (n) => n >= INTAKE_EVENTS,
    { timeoutMs: 120_000, intervalMs: 250 },
  );
  const appliedSeconds = (performance.now() - started) / 1000;
  const intake = { ...accepted, applied_per_second: Math.round(INTAKE_EVENTS / appliedSeconds) };
  console.log(JSON.stringify({ intake }));
  return intake;
}

/** One kill -9 cycle: writes and deliveries, the owner killed a third of the way, then restarted. */
async function killCycle(cluster: TestCluster, cycle: number, tenants: Tenant[]) {
  const views = await Promise.all(cluster.nodes.map(clusterView));
  const owners = views[0]!.owners;
  const victimId = cluster.nodes[cycle % cluster.nodes.length]!.nodeId;
  const victim = cluster.nodes.find((n) => n.nodeId === victimId)!;
  let alive = cluster.nodes.map((n) => n.server.base);
  const ackedWrites = new Map(tenants.map((t) => [t.id, new Set<string>()]));
  const ackedDeliveries = new Map(tenants.map((t) => [t.id, new Set<string>()]));
  let killedAt = 0;
  let takeover = 0;
  for (let i = 0; i < ROUND_WRITES; i++) {
    if (i === Math.floor(ROUND_WRITES / 3)) {
      await killHard(victim.server);
      killedAt = performance.now();
      alive = cluster.nodes.filter((n) => n !== victim).map((n) => n.server.base);
    }
    await Promise.all(
      tenants.map(async (tenant, t) => {
        const tag = `c${cycle}-${i}-${t}`;
        for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
          const base = alive[(attempt + t) % alive.length]!;
          const status = await deliver(base, tenant, tag);
          if (status === 200 || status === 202) {
            ackedDeliveries.get(tenant.id)!.add(deliveryContent(tag));
            break;
          }
        }
        for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
          const base = alive[(attempt + t) % alive.length]!;
          const content = `write ${tag}`;
          const answer = await httpCall(base, "POST", "/memory/facts", {
            token: tenant.token,
            body: { content },
          }).catch(() => undefined);
          if (answer?.status === 201 || answer?.status === 200) {
            ackedWrites.get(tenant.id)!.add(content);
            if (killedAt && !takeover && owners[partitionOf(tenant.id)] === victimId)
              takeover = performance.now() - killedAt;
            break;
          }
        }
      }),
    );
  }
  const survivors = cluster.nodes.filter((n) => n !== victim);
  await verify(survivors, tenants, ackedWrites, ackedDeliveries, `cycle ${cycle} after kill`);
  const restartedAt = performance.now();
  await cluster.startNode(victimId);
  await waitForSettled(cluster.nodes, 60_000);
  const rebalanceMs = Math.round(performance.now() - restartedAt);
  await verify(cluster.nodes, tenants, ackedWrites, ackedDeliveries, `cycle ${cycle} after rejoin`);
  const acked = [...ackedWrites.values()].reduce((n, s) => n + s.size, 0);
  const deliveries = [...ackedDeliveries.values()].reduce((n, s) => n + s.size, 0);
  return {
    cycle,
    victim: victimId,
    takeover_ms: Math.round(takeover),
    rejoin_settled_ms: rebalanceMs,
    acked_writes: acked,
    acked_deliveries: deliveries,
  };
}

/** Every acknowledged write and delivery present exactly once, read through every given node. */
async function verify(
  nodes: ClusterNodeProcess[],
  tenants: Tenant[],
  writes: Map<string, Set<string>>,
  deliveries: Map<string, Set<string>>,
  when: string,
) {
  for (const tenant of tenants) {
    const expected = [...writes.get(tenant.id)!, ...deliveries.get(tenant.id)!];
    await pollUntil(
      async () => new Set(await contents(nodes[0]!.server.base, tenant)),
      (present) => expected.every((c) => present.has(c)),
      { timeoutMs: 60_000, intervalMs: 250 },
    ).catch(() => fail(`${when}: tenant ${tenant.id} lacks acknowledged data`));
    for (const node of nodes) {
      const seen = await contents(node.server.base, tenant);
      if (new Set(seen).size !== seen.length)
        fail(`${when}: tenant ${tenant.id} has doubled entries via ${node.nodeId}`);
      for (const c of expected) if (!seen.includes(c)) fail(`${when}: ${c} missing via ${node.nodeId}`);
    }
  }
}

/** Snapshots the nodes' logs report over the run (every log of the run, killed nodes' included). */
function snapshotCounts(root: string): {
  periodic: number;
  /** Compactions asked for (erasures, deletions) or owed by a takeover. */
  compactions: number;
  restored_from_snapshot: number;
  failed: number;
} {
  const logs = readdirSync(root)
    .filter((name) => name.endsWith(".log"))
    .map((name) => readFileSync(join(root, name), "utf8"))
    .join("\n");
  const count = (pattern: RegExp) => logs.match(pattern)?.length ?? 0;
  return {
    periodic: count(/periodic snapshot at \d+/g),
    compactions: count(/: compaction at \d+/g),
    restored_from_snapshot: count(/: snapshot at [1-9]\d*, then/g),
    failed: count(/(snapshot|compaction) failed/g),
  };
}

async function main() {
  // The figures are the cluster's, not the per-tenant rate limiter's: it is off here.
  const cluster = await startTestCluster(["s1", "s2", "s3"], SECRET, {
    MEMORY_RUNTIME_RATE_LIMITS: "off",
    // Periodic snapshots and purges during the kill cycles (the nodes' default is 10 000 writes).
    ...(SNAPSHOT_RECORDS ? { MEMORY_RUNTIME_CLUSTER_SNAPSHOT_RECORDS: SNAPSHOT_RECORDS } : {}),
  });
  try {
    await waitForSettled(cluster.nodes, 30_000);
    const admin = await adminTokenFor(SECRET);
    const rounds: ClusterRound[] = [];
    for (let r = 0; r < FIGURE_ROUNDS; r++)
      rounds.push({
        ...(await measureForwarding(cluster, admin)),
        intake: await measureIntake(cluster, admin),
      });
    figures.figure_rounds = rounds;
    const tenants: Tenant[] = [];
    for (let i = 0; i < 9; i++) {
      const tenant = await createTenant(cluster.nodes[0]!.server.base, admin, `Soak ${i}`);
      await cluster.setSecrets(tenant.id, { STANDARD_WEBHOOK_SECRET: STANDARD_SECRET }, admin);
      tenants.push(tenant);
    }
    const cycles = [];
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const result = await killCycle(cluster, cycle, tenants);
      console.log(JSON.stringify(result));
      cycles.push(result);
    }
    figures.kill_cycles = cycles;
    figures.snapshots = snapshotCounts(cluster.root);
    figures.failures = failures;
  } finally {
    await cluster.stop();
  }
  const out = join(ROOT, "test-artifacts", "cluster-figures.json");
  mkdirSync(join(ROOT, "test-artifacts"), { recursive: true });
  writeFileSync(out, `${JSON.stringify(figures, null, 2)}\n`);
  console.log(JSON.stringify(figures, null, 2));
  const summary = writeClusterFigures(
    (figures.figure_rounds ?? []) as ClusterRound[],
    {
      cycles: CYCLES,
      load_requests: LOAD_REQUESTS,
      intake_events: INTAKE_EVENTS,
    },
    failures,
  );
  console.log(
    `cluster figures: forwarded/local ${summary.forwarded_local_ratio}×, intake ${summary.intake_deliveries_per_s} deliveries/s (written to ${summary.file})`,
  );
  console.log(failures === 0 ? "soak:cluster: no loss, no doubles" : `soak:cluster: ${failures} failures`);
  process.exit(failures === 0 ? 0 : 1);
}

await main();
