/**
 * `bun run test/cluster/import-figures.ts`: the time of a tenant import in cluster mode against a
 * single node, on loopback. A tenant of IMPORT_ENTRIES (default 10,000) facts is written and
 * exported once; the export is then imported RUNS times into new tenants of a single-node server
 * and of a 3-node cluster, sent to the owner and through a node that does not serve the tenant
 * (the body is then pulled over NATS). The cluster's import also copies the vault, uploads it to
 * the object store and appends its record (its time is in the owner's log: `cluster_step`).
 * Prints the figures as JSON (medians of the client's wall time and of the reply's `took_ms`).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { partitionOf } from "../../src/cluster/partition.ts";
import { NDJSON } from "../../src/http/ndjson.ts";
import { clusterView, startTestCluster, waitForSettled } from "../helpers/cluster-processes.ts";
import { adminTokenFor, httpCall, killHard, startServerProcess } from "../helpers/server-process.ts";

const SECRET = "cluster-import-figures-secret-of-32-bytes!!";
const ENTRIES = Number(process.env.IMPORT_ENTRIES ?? 10_000);
const RUNS = Number(process.env.IMPORT_RUNS ?? 3);
const BATCH = 1000;
/** The owner's log line of each import (import-log.ts): the vault's size and the cluster step's time. */
const IMPORT_LOGGED = /import into \w+ logged at \d+ \((\d+) bytes, (\d+) ms to copy, upload and append\)/g;

async function createTenant(base: string, admin: string, name: string) {
  const created = await httpCall(base, "POST", "/admin/tenants", { token: admin, body: { name } });
  if (created.status !== 201) throw new Error(`tenant creation: ${created.status}`);
  return { id: created.body.tenant_id as string, token: created.body.token as string };
}

/** ENTRIES facts written in batches, then exported: the NDJSON body of every import. */
async function exportOf(base: string, admin: string): Promise<string> {
  const source = await createTenant(base, admin, "Figures source");
  for (let from = 0; from < ENTRIES; from += BATCH) {
    const entries = Array.from({ length: Math.min(BATCH, ENTRIES - from) }, (_, i) => ({
      content: `fact ${from + i} about topic ${(from + i) % 97} of the figures run`,
      tags: [`t${(from + i) % 13}`],
    }));
    const wrote = await httpCall(base, "POST", "/memory/facts/batch", {
      token: source.token,
      body: { entries },
    });
    if (wrote.status !== 201) throw new Error(`batch: ${wrote.status} ${JSON.stringify(wrote.body)}`);
  }
  const exported = await fetch(`${base}/admin/tenants/${source.id}/export`, {
    headers: { authorization: `Bearer ${admin}` },
  });
  if (exported.status !== 200) throw new Error(`export: ${exported.status}`);
  return exported.text();
}

/** One import: the client's wall time and the reply's took_ms. */
async function timedImport(base: string, admin: string, tenantId: string, ndjson: string) {
  const started = performance.now();
  const answer = await fetch(`${base}/admin/tenants/${tenantId}/import`, {
    method: "POST",
    headers: { authorization: `Bearer ${admin}`, "content-type": NDJSON },
    body: ndjson,
  });
  const body = (await answer.json()) as { imported?: { entries: number }; took_ms?: number };
  const wall = performance.now() - started;
  if (answer.status !== 200 || body.imported?.entries !== ENTRIES)
    throw new Error(`import: ${answer.status} ${JSON.stringify(body)}`);
  return { wall_ms: Math.round(wall), took_ms: body.took_ms! };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function summary(runs: Array<{ wall_ms: number; took_ms: number }>) {
  return {
    runs: runs.length,
    wall_ms_median: median(runs.map((r) => r.wall_ms)),
    took_ms_median: median(runs.map((r) => r.took_ms)),
    wall_ms_each: runs.map((r) => r.wall_ms),
  };
}

const admin = await adminTokenFor(SECRET);
const root = mkdtempSync(join(tmpdir(), "mr-import-figures-"));
const single = await startServerProcess({
  dataDir: join(root, "single"),
  secret: SECRET,
  logDir: root,
  label: "single",
});
const figures: Record<string, unknown> = { entries: ENTRIES };
try {
  const ndjson = await exportOf(single.base, admin);
  figures.export_bytes = Buffer.byteLength(ndjson);
  const singleRuns = [];
  for (let run = 0; run < RUNS; run++) {
    const target = await createTenant(single.base, admin, `Single ${run}`);
    singleRuns.push(await timedImport(single.base, admin, target.id, ndjson));
  }
  figures.single_node = summary(singleRuns);
  await killHard(single);

  const cluster = await startTestCluster(["m1", "m2", "m3"], SECRET);
  try {
    await waitForSettled(cluster.nodes);
    const owners = (await clusterView(cluster.nodes[0]!)).owners;
    const ownerRuns = [];
    const forwardedRuns = [];
    for (let run = 0; run < RUNS; run++) {
      const target = await createTenant(cluster.nodes[0]!.server.base, admin, `Cluster ${run}`);
      const owner = cluster.nodes.find((n) => n.nodeId === owners[partitionOf(target.id)])!;
      ownerRuns.push(await timedImport(owner.server.base, admin, target.id, ndjson));
      // The same through a node that does not serve the tenant: the body is pulled over NATS.
      const another = await createTenant(cluster.nodes[0]!.server.base, admin, `Forwarded ${run}`);
      const other = cluster.nodes.find((n) => n.nodeId !== owners[partitionOf(another.id)])!;
      forwardedRuns.push(await timedImport(other.server.base, admin, another.id, ndjson));
    }
    figures.cluster_owner = summary(ownerRuns);
    figures.cluster_through_non_owner = summary(forwardedRuns);
    // What the owner logged of each import: copy, upload and append.
    const logged = [];
    for (const node of cluster.nodes)
      for (const m of readFileSync(join(cluster.root, `${node.label}.log`), "utf8").matchAll(IMPORT_LOGGED))
        logged.push({ bytes: Number(m[1]), ms: Number(m[2]) });
    figures.cluster_step = logged;
  } finally {
    await cluster.stop();
  }
} finally {
  await killHard(single);
  rmSync(root, { recursive: true, force: true });
}
console.log(JSON.stringify(figures, null, 2));
