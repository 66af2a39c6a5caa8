/**
 * The system replica in-process on a real nats-server (docs/cluster.md, "Cluster-wide system
 * state"): a purge that lands between a node's check of the stream and its consumer's start (the
 * consumer then sees a gap) makes it load the newest snapshot and go on after it; a store that
 * holds what the stream does not (written before it applied any command, or past the stream's end)
 * is emptied before it joins; and the content ends up the same as the node that wrote it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type JetStreamClient, type JetStreamManager, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { SYSTEM_STREAM, SystemReplica } from "../../src/cluster/system-replica.ts";
import { SystemSnapshots } from "../../src/cluster/system-snapshots.ts";
import { SystemStore } from "../../src/vault/system-store.ts";
import { tenantRecord as tenant } from "../fakes/system-records.ts";
import { type NatsServer, startNatsServer } from "../helpers/nats-server.ts";

const TENANTS = ["01JDB2X6J3KQ5W8Z3M4N7P9R2A", "01JDB2X6J3KQ5W8Z3M4N7P9R2B", "01JDB2X6J3KQ5W8Z3M4N7P9R2C"];
const FOREIGN = "01JDB2X6J3KQ5W8Z3M4N7P9R2Z";
const LATER = "01JDB2X6J3KQ5W8Z3M4N7P9R2Y";
let nats: NatsServer;
let nc: NatsConnection;
let js: JetStreamClient;
let jsm: JetStreamManager;
const root = mkdtempSync(join(tmpdir(), "mrt-replica-"));
const stores: SystemStore[] = [];
const replicas: SystemReplica[] = [];
const quiet = () => {};

function store(name: string, maxBytes?: number): SystemStore {
  const opened = new SystemStore(join(root, name), 1000, { maxBytes });
  stores.push(opened);
  return opened;
}

function replicaOf(target: SystemStore, client: JetStreamClient = js): SystemReplica {
  const replica = new SystemReplica({
    store: target,
    js: client,
    jsm,
    snapshots: () => SystemSnapshots.open(nc),
    log: quiet,
  });
  replicas.push(replica);
  return replica;
}

/** What two stores must agree on. */
const contentOf = (s: SystemStore) => ({
  tenants: s.listTenants(),
  roles: TENANTS.map((t) => s.listRoles(t)),
  denials: TENANTS.map((t) => s.listDenials(t, 100)),
  events: s.listAdminEvents(100),
});

let writer: SystemStore;

/**
 * A snapshot of the writer (unless one at its sequence exists: another test took it) and the
 * stream purged below it, as the node serving partition 0 does; answers the snapshot's sequence.
 */
async function snapshotAndPurge(): Promise<number> {
  await (await SystemSnapshots.open(nc)).capture(writer);
  const seq = writer.appliedSeq();
  await jsm.streams.purge(SYSTEM_STREAM, { seq });
  return seq;
}

describe("the system replica", () => {
  beforeAll(async () => {
    nats = await startNatsServer();
    nc = await connect({ servers: nats.url });
    js = jetstream(nc);
    jsm = await jetstreamManager(nc);
    writer = store("writer");
    await replicaOf(writer).start();
    // Through the replica: each call is a command on the stream, applied, then answered.
    for (const [n, id] of TENANTS.entries()) {
      await writer.createTenant(tenant(id, `Tenant ${n}`));
      await writer.putRole(id, {
        name: "reader",
        permissions: ["memory:read"],
        description: "",
        builtin: false,
      });
      await writer.recordDenial({
        at: "2026-11-21T10:00:00.000Z",
        tenant_id: id,
        sub: `agent-${n}`,
        roles: ["reader"],
        method: "POST",
        path: "/memory/facts",
        permission: "memory:write",
        reason: "no role grants memory:write",
      });
    }
    await writer.recordAdminEvent({
      at: "2026-11-21T10:00:00.000Z",
      action: "tenant.created",
      sub: "operator",
      tenant_id: TENANTS[0]!,
      target: null,
      details: {},
    });
  }, 30_000);
  afterAll(async () => {
    for (const replica of replicas) replica.stop();
    for (const s of stores) await s.close();
    await nc?.close();
    await nats?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  test("a purge between the check of the stream and the consumer's start: the gap loads the snapshot", async () => {
    const late = store("late");
    let purgedAt = 0;
    // The consumer is created only after a snapshot of the writer and the purge below it.
    const purgingFirst = {
      ...js,
      consumers: {
        get: async (...args: Parameters<JetStreamClient["consumers"]["get"]>) => {
          purgedAt = await snapshotAndPurge();
          return js.consumers.get(...args);
        },
      },
    } as unknown as JetStreamClient;
    const replica = replicaOf(late, purgingFirst);
    await replica.start();
    const { last_seq: last, first_seq: first } = (await jsm.streams.info(SYSTEM_STREAM)).state;
    expect(purgedAt).toBe(last);
    expect(first).toBe(purgedAt);
    expect(replica.view()).toEqual({ applied_seq: last, applied_since_start: 0, snapshot_seq: purgedAt });
    expect(contentOf(late)).toEqual(contentOf(writer));

    // It goes on from there like the others.
    await writer.createTenant(tenant(LATER, "After The Purge"));
    await replica.catchUp();
    expect(replica.view().applied_since_start).toBe(1);
    expect(late.tenantIdByName("after the purge")).toBe(LATER);
  });

  test("a store written before it applied any command, or past the stream's end, is emptied before it joins", async () => {
    const unapplied = store("unapplied");
    await unapplied.createTenant(tenant(FOREIGN, "Written Alone"));
    const ahead = store("ahead");
    await ahead.createTenant(tenant(FOREIGN, "Another History"));
    await ahead.markApplied(1_000_000);
    // The stream purged below a snapshot of the writer: a joining store must come from there.
    await snapshotAndPurge();
    for (const joining of [unapplied, ahead]) {
      const replica = replicaOf(joining);
      await replica.start();
      expect(joining.getTenant(FOREIGN)).toBeUndefined();
      expect(contentOf(joining)).toEqual(contentOf(writer));
      // The stream was purged below a snapshot: it came from there.
      expect(replica.view().snapshot_seq).toBeGreaterThan(0);
    }
  });

  test("a store at its size ceiling applies what the others accepted, and refuses its own growth before publishing", async () => {
    const full = store("full", 1);
    const replica = replicaOf(full);
    await replica.start();
    const grown = "01JDB2X6J3KQ5W8Z3M4N7P9R2G";
    await writer.createTenant(tenant(grown, "Grown Elsewhere"));
    await writer.putRole(grown, {
      name: "auditor",
      permissions: ["memory:read"],
      description: "",
      builtin: false,
    });
    await replica.catchUp();
    expect(full.getTenant(grown)?.name).toBe("Grown Elsewhere");
    expect(full.getRole(grown, "auditor")?.permissions).toEqual(["memory:read"]);
    expect(contentOf(full)).toEqual(contentOf(writer));

    const before = (await jsm.streams.info(SYSTEM_STREAM)).state.last_seq;
    await expect(full.createTenant(tenant(FOREIGN, "Refused Here"))).rejects.toMatchObject({ status: 507 });
    await expect(
      full.putRole(grown, { name: "writer", permissions: ["memory:write"], description: "", builtin: false }),
    ).rejects.toMatchObject({ status: 507 });
    expect((await jsm.streams.info(SYSTEM_STREAM)).state.last_seq).toBe(before);
  });
});
