/**
 * Cluster-wide system state with real processes (docs/cluster.md, "Cluster-wide system state"):
 * a restarting node applies only the `MR_SYSTEM` commands after the sequence its store kept; the
 * node serving partition 0 snapshots the system store every N commands (here 30) and purges the
 * stream below it; a fresh node (new data dir) then loads the snapshot and applies the tail, and
 * holds the same tenants, roles, denial and admin logs, paged alike.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type JetStreamManager, jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { SYSTEM_STREAM } from "../../src/cluster/system-replica.ts";
import type { SystemStateView } from "../../src/cluster/system-state.ts";
import {
  type ClusterNodeProcess,
  startTestCluster,
  type TestCluster,
  waitForSettled,
} from "../helpers/cluster-processes.ts";
import { pollUntil } from "../helpers/poll.ts";
import { adminTokenFor, httpCall, killHard } from "../helpers/server-process.ts";

const SECRET = "cluster-system-state-secret-of-at-least-32-bytes";
const SNAPSHOT_EVERY = 30;
let cluster: TestCluster;
let nc: NatsConnection;
let jsm: JetStreamManager;
let admin: string;

async function systemView(node: ClusterNodeProcess): Promise<SystemStateView> {
  return (await httpCall(node.server.base, "GET", "/healthz")).body.cluster.system;
}

async function streamState(): Promise<{ first: number; last: number }> {
  const { first_seq, last_seq } = (await jsm.streams.info(SYSTEM_STREAM)).state;
  return { first: first_seq, last: last_seq };
}

/** Waits until the node applied every command on the stream. */
async function caughtUp(node: ClusterNodeProcess): Promise<SystemStateView> {
  const { last } = await streamState();
  return pollUntil(
    () => systemView(node),
    (view) => view?.applied_seq === last,
    { timeoutMs: 10_000, intervalMs: 50 },
  );
}

async function createTenant(node: ClusterNodeProcess, name: string): Promise<{ id: string; token: string }> {
  const created = await httpCall(node.server.base, "POST", "/admin/tenants", {
    token: admin,
    body: { name },
  });
  expect(created.status).toBe(201);
  return { id: created.body.tenant_id, token: created.body.token };
}

/** Every page of a paged admin listing, in order, with the cursors that led to them. */
async function allPages(node: ClusterNodeProcess, path: string, field: string): Promise<unknown[]> {
  const pages: unknown[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const query: string = `limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const answer = await httpCall(node.server.base, "GET", `${path}?${query}`, { token: admin });
    expect(answer.status).toBe(200);
    pages.push({ cursor, items: answer.body[field] });
    cursor = answer.body.next_cursor;
    if (cursor === null) return pages;
  }
  throw new Error(`${path}: more than 100 pages`);
}

/** A cluster of its own for each describe: each test stops or adds nodes. */
function ownCluster(): void {
  beforeAll(async () => {
    cluster = await startTestCluster(["y1", "y2"], SECRET, {
      MEMORY_RUNTIME_CLUSTER_SYSTEM_SNAPSHOT_COMMANDS: String(SNAPSHOT_EVERY),
    });
    nc = await connect({ servers: cluster.nats.url });
    jsm = await jetstreamManager(nc);
    admin = await adminTokenFor(SECRET);
    await waitForSettled(cluster.nodes);
  }, 60_000);
  afterAll(async () => {
    await nc?.close();
    await cluster?.stop();
  });
}

describe("cluster: a restarted node's system state (real processes)", () => {
  ownCluster();

  test("a restarted node applies only the commands after the sequence its store kept", async () => {
    const [y1, y2] = cluster.nodes as [ClusterNodeProcess, ClusterNodeProcess];
    await createTenant(y1, "Before Restart Co");
    const before = await caughtUp(y2);
    expect(before.applied_seq).toBeGreaterThan(0);

    await killHard(y2.server);
    await waitForSettled([y1], 20_000);
    // Commands while it is down: two tenants (a createTenant and an admin event each).
    const during = [await createTenant(y1, "During Restart A"), await createTenant(y1, "During Restart B")];
    const { first, last } = await streamState();
    expect(first).toBe(1); // far below any snapshot: nothing was purged yet
    expect(last).toBeLessThan(SNAPSHOT_EVERY);

    const back = await cluster.startNode("y2");
    const view = await caughtUp(back);
    expect(view).toEqual({
      applied_seq: last,
      applied_since_start: last - before.applied_seq,
      snapshot_seq: 0,
      snapshots_taken: 0,
    });
    // What it applied is served: the tenants created while it was down authenticate there.
    await waitForSettled(cluster.nodes);
    for (const tenant of during)
      expect((await httpCall(back.server.base, "GET", "/memory/facts", { token: tenant.token })).status).toBe(
        200,
      );
    const listed = await httpCall(back.server.base, "GET", "/admin/tenants?limit=100", { token: admin });
    expect(listed.body.tenants.map((t: { name: string }) => t.name).sort()).toEqual([
      "Before Restart Co",
      "During Restart A",
      "During Restart B",
    ]);
  }, 60_000);
});

describe("cluster: a fresh node's system state from a snapshot (real processes)", () => {
  ownCluster();

  test("after a snapshot and the purge below it, a fresh node loads it and holds the same logs", async () => {
    const [y1] = cluster.nodes as [ClusterNodeProcess];
    const denied = await createTenant(y1, "Denied Co");
    const role = await httpCall(y1.server.base, "POST", `/admin/roles/${denied.id}`, {
      token: admin,
      body: { name: "writer-only", permissions: ["memory:write"] },
    });
    expect(role.status).toBe(201);
    const minted = await httpCall(y1.server.base, "POST", `/admin/jwt/${denied.id}`, {
      token: admin,
      body: { roles: ["writer-only"], sub: "agent-denied", ttl_seconds: 600 },
    });
    expect(minted.status).toBe(201);
    // Each refused read is a denial, a command on the stream: past a snapshot's worth.
    for (let n = 0; n < SNAPSHOT_EVERY + 5; n++)
      expect(
        (await httpCall(y1.server.base, "GET", `/memory/facts?n=${n}`, { token: minted.body.token })).status,
      ).toBe(403);
    const purged = await pollUntil(streamState, (state) => state.first > 1, {
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    for (const node of cluster.nodes) await caughtUp(node);
    const taken = await Promise.all(cluster.nodes.map(systemView));
    expect(taken.reduce((sum, view) => sum + view.snapshots_taken, 0)).toBeGreaterThan(0);

    const tenantsBefore = await allPages(y1, "/admin/tenants", "tenants");
    const eventsBefore = await allPages(y1, "/admin/audit/events", "events");
    const denialsBefore = await allPages(y1, `/admin/audit/denials/${denied.id}`, "denials");
    expect(denialsBefore.flatMap((p) => (p as { items: unknown[] }).items).length).toBe(SNAPSHOT_EVERY + 5);

    // A node with a new data dir: the stream no longer holds the first commands.
    const fresh = await cluster.startNode("y3");
    const view = await caughtUp(fresh);
    const { last } = await streamState();
    expect(view.snapshot_seq).toBeGreaterThanOrEqual(purged.first);
    expect(view.applied_since_start).toBe(last - view.snapshot_seq);
    expect(view.applied_seq).toBe(last);
    // The others stop cleanly: the fresh node alone answers from its own store.
    for (const node of cluster.nodes.filter((n) => n !== fresh)) {
      node.server.proc.kill("SIGTERM");
      await node.server.proc.exited;
    }
    await waitForSettled([fresh], 20_000);
    expect(await allPages(fresh, "/admin/tenants", "tenants")).toEqual(tenantsBefore);
    expect(await allPages(fresh, "/admin/audit/events", "events")).toEqual(eventsBefore);
    expect(await allPages(fresh, `/admin/audit/denials/${denied.id}`, "denials")).toEqual(denialsBefore);
    // Its roles hold: the writer-only token is still refused a read, and its tenant's admin token reads.
    expect(
      (await httpCall(fresh.server.base, "GET", "/memory/facts", { token: minted.body.token })).status,
    ).toBe(403);
    expect((await httpCall(fresh.server.base, "GET", "/memory/facts", { token: denied.token })).status).toBe(
      200,
    );
  }, 90_000);
});
