/**
 * A node keeps no vault of a partition it does not serve (src/cluster/local-copies.ts), with real
 * processes: the node that creates a tenant it does not serve opens no vault; the owner's vault
 * is removed when the partition moves away at a rebalance (requests racing the move, sent to that
 * node, get 2xx or 503, never a 500, and every read holds every write acknowledged before it); a
 * node killed with the vault on disk removes it when it starts again and does not win the partition
 * back; a node stopped cleanly removes every vault. The new owner serves every acknowledged write.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { desiredOwner, partitionOf } from "../../src/cluster/partition.ts";
import {
  type ClusterNodeProcess,
  clusterView,
  createTenantOwnedBy,
  placementOf,
  startTestCluster,
  type TestCluster,
  waitForSettled,
} from "../helpers/cluster-processes.ts";
import { pollUntil } from "../helpers/poll.ts";
import { adminTokenFor, type HttpAnswer, httpCall, killHard } from "../helpers/server-process.ts";

const SECRET = "cluster-former-owners-secret-of-32-bytes!!";
/** Attempts per acknowledged write: each waits at most the router's bounded wait (2 s) for an owner. */
const ATTEMPTS = 12;
/** Requests sent to the releasing node while its partition moves, at most. */
const RACE_REQUESTS = 600;
/** Clients sending them at once. */
const RACE_CLIENTS = 4;

let cluster: TestCluster;

interface Tenant {
  id: string;
  token: string;
}

const logOf = (node: ClusterNodeProcess) => readFileSync(join(cluster.root, `${node.label}.log`), "utf8");

const vaultOn = (node: ClusterNodeProcess, tenant: Tenant) =>
  existsSync(join(node.dataDir, "tenants", tenant.id));

/**
 * Created through `via` until its partition is served by `first` among `before`, and moves to
 * `joiner` once it joins (rendezvous is a pure function of the node ids).
 */
async function createMovingTenant(
  via: string,
  admin: string,
  first: string,
  joiner: string,
): Promise<Tenant> {
  const before = cluster.nodes.map((n) => n.nodeId);
  for (let i = 0; i < 120; i++) {
    const created = await httpCall(via, "POST", "/admin/tenants", {
      token: admin,
      body: { name: `Moving ${i}` },
    });
    expect(created.status).toBe(201);
    const partition = partitionOf(created.body.tenant_id);
    if (desiredOwner(partition, before) === first && desiredOwner(partition, [...before, joiner]) === joiner)
      return { id: created.body.tenant_id, token: created.body.token };
  }
  throw new Error("no tenant moving as wanted in 120 creations");
}

/** A write retried on 503 or a refused connection, through the given nodes in turn; its id once acknowledged. */
async function write(bases: string[], tenant: Tenant, content: string): Promise<string> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const answer = await httpCall(bases[attempt % bases.length]!, "POST", "/memory/facts", {
      token: tenant.token,
      body: { content },
    }).catch(() => undefined);
    if (answer?.status === 201) return answer.body.id;
  }
  throw new Error(`"${content}" not acknowledged in ${ATTEMPTS} attempts`);
}

/**
 * What is wrong with an answer racing the move, if anything: a 503 without `Retry-After`, a write
 * not 201, a read not 200 or missing a write acknowledged before it was sent (a read never comes
 * from a vault being removed, or from none).
 */
function anomalyOf(answer: HttpAnswer, writing: boolean, before: Set<string>): string | undefined {
  if (answer.status === 0) return "no answer";
  if (answer.status === 503)
    return answer.headers.get("retry-after") === null ? "503 without Retry-After" : undefined;
  if (writing) return answer.status === 201 ? undefined : "a write not 201";
  if (answer.status !== 200) return "a read not 200";
  const ids = new Set(answer.body.items.map((e: { id: string }) => e.id));
  const missing = [...before].filter((id) => !ids.has(id));
  return missing.length > 0
    ? `a read missing ${missing.length} earlier writes: ${missing.join(", ")}`
    : undefined;
}

/** The list, asked again after a 503 (a lease renewal late on a busy machine), as a client would. */
async function listedWhenServed(base: string, tenant: Tenant): Promise<HttpAnswer> {
  let answer = await listed(base, tenant);
  for (let attempt = 1; attempt < ATTEMPTS && answer.status === 503; attempt++)
    answer = await listed(base, tenant);
  return answer;
}

async function listed(base: string, tenant: Tenant): Promise<HttpAnswer> {
  return httpCall(base, "GET", "/memory/facts?limit=500", { token: tenant.token });
}

describe("cluster: former owners keep no tenant vault", () => {
  beforeAll(async () => {
    cluster = await startTestCluster(["fa", "fb"], SECRET);
    await waitForSettled(cluster.nodes);
  }, 60_000);
  afterAll(async () => {
    await cluster.stop();
  });

  test("a moved partition's vault leaves the node that served it; the new owner serves every acknowledged write", async () => {
    const admin = await adminTokenFor(SECRET);
    const [fa, fb] = cluster.nodes as [ClusterNodeProcess, ClusterNodeProcess];
    // Served by fa while fa and fb run, by fc once it joins; created through fb, which never serves it.
    const tenant = await createMovingTenant(fb.server.base, admin, "fa", "fc");
    const partition = partitionOf(tenant.id);
    expect((await clusterView(fb)).owners[partition]).toBe("fa");
    const acked = new Map<string, string>();
    for (let i = 0; i < 5; i++)
      acked.set(await write([fb.server.base], tenant, `before kill ${i}`), `before kill ${i}`);
    expect(vaultOn(fa, tenant)).toBe(true);
    // The creating node opened no vault for a partition it does not serve.
    expect(vaultOn(fb, tenant)).toBe(false);

    // fa killed with the vault on its disk: fb takes the partition over from the log.
    await killHard(fa.server);
    for (let i = 0; i < 5; i++)
      acked.set(await write([fb.server.base], tenant, `after kill ${i}`), `after kill ${i}`);
    // (Its lease, not its serve window: a renewal late on a busy machine lapses that for a moment.)
    expect((await clusterView(fb)).owners[partition]).toBe("fb");
    expect(vaultOn(fb, tenant)).toBe(true);

    // fc joins and wins the partition: fb releases it, with requests for the tenant arriving at fb.
    const statuses = new Map<number, number>();
    // Whatever is wrong with an answer, with the answer itself (for the failure message).
    const anomalies: { request: number; status: number; anomaly: string; body: unknown }[] = [];
    let moved = false;
    let raced = 0;
    // Concurrent clients alternating writes and reads, so some are inside fb's app when it lets go.
    const client = async () => {
      while (raced < RACE_REQUESTS && !moved) {
        const n = raced++;
        const writing = n % 2 === 0;
        const before = new Set(acked.keys());
        const sent = writing
          ? httpCall(fb.server.base, "POST", "/memory/facts", {
              token: tenant.token,
              body: { content: `race ${n}` },
            })
          : listed(fb.server.base, tenant);
        const answer = await sent.catch((error: Error) => ({ status: 0, body: error.message }) as HttpAnswer);
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        const anomaly = anomalyOf(answer, writing, before);
        if (anomaly) anomalies.push({ request: n, status: answer.status, anomaly, body: answer.body });
        else if (writing && answer.status === 201) acked.set(answer.body.id, `race ${n}`);
      }
    };
    const race = Promise.all(Array.from({ length: RACE_CLIENTS }, client));
    const fc = await cluster.startNode("fc");
    await pollUntil(
      async () => ({ fbHolds: vaultOn(fb, tenant), owner: (await clusterView(fc)).owners[partition] }),
      (state) => !state.fbHolds && state.owner === "fc",
      { timeoutMs: 20_000, intervalMs: 50 },
    );
    moved = true;
    await race;
    console.log(`figures: requests racing the move at the former owner: ${JSON.stringify([...statuses])}`);
    expect(anomalies).toEqual([]);
    expect(raced).toBeGreaterThan(0);
    expect(vaultOn(fb, tenant)).toBe(false);

    // fa comes back with its old vault on disk, and does not win the partition back: it removes it.
    expect(vaultOn(fa, tenant)).toBe(true);
    const back = await cluster.startNode("fa");
    await waitForSettled(cluster.nodes);
    expect((await clusterView(back)).owners[partition]).toBe("fc");
    await pollUntil(
      () => vaultOn(back, tenant),
      (held) => !held,
      { timeoutMs: 10_000, intervalMs: 50 },
    );

    // Each said so in its log (with how long the removal took).
    for (const node of [fb, back]) {
      const removals = logOf(node).match(
        new RegExp(
          `partition ${partition}: not served here, local copies of \\d+ tenants removed in \\d+ ms`,
        ),
      );
      // On a failure, what the node said of the partition instead.
      const aboutIt = logOf(node)
        .split("\n")
        .filter((line) => line.includes(`partition ${partition}`));
      expect({ node: node.nodeId, said: removals ? "removed" : aboutIt }).toEqual({
        node: node.nodeId,
        said: "removed",
      });
      console.log(`figures: ${node.nodeId}: ${removals![0]}`);
    }

    // Only the owner holds the vault, and every node answers with every acknowledged write.
    expect(vaultOn(fc, tenant)).toBe(true);
    for (const node of cluster.nodes) {
      const answer = await listedWhenServed(node.server.base, tenant);
      expect(answer.status).toBe(200);
      const items = new Map(answer.body.items.map((e: { id: string; content: string }) => [e.id, e.content]));
      for (const [id, content] of acked) expect(items.get(id)).toBe(content);
    }

    // A node stopped cleanly keeps no tenant vault: its partitions are served elsewhere from now on.
    const served = await createTenantOwnedBy(cluster, "fb", fc.server.base, admin, "Stopped");
    await write([fc.server.base], served, "held by fb until it stops");
    // The node that served that write, as placed now: the leases may still be settling after the
    // move above, so the owner read before the creation (fb) can have handed the partition on.
    const stopped = (await placementOf(cluster, served.id)).owner;
    expect(vaultOn(stopped, served)).toBe(true);
    stopped.server.proc.kill("SIGTERM");
    const exit = await stopped.server.proc.exited;
    const left = readdirSync(join(stopped.dataDir, "tenants"));
    // On a failure, the end of the node's log says what its stop went through.
    const logEnd = exit === 0 && left.length === 0 ? "" : logOf(stopped).split("\n").slice(-15).join("\n");
    expect({ exit, left, logEnd }).toEqual({ exit: 0, left: [], logEnd: "" });
  }, 90_000);
});
