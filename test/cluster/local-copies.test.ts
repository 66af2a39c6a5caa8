/**
 * A node's local copies of partitions it does not serve (src/cluster/local-copies.ts): removed once
 * what runs for their tenants stopped and their actors closed, never while the partition is served,
 * never at the same time as a restore of the same partition; and the ownership hook that asks for
 * it fires for a partition dropped while still being restored (never served, so no `onServing`).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ulid } from "ulid";
import { type ClusterTimings, DEFAULT_SNAPSHOT_POLICY } from "../../src/cluster/config.ts";
import {
  LocalCopies,
  type LocalCopiesDeps,
  STOP_RUNNING_WAIT_MS,
  tenantsOnDisk,
} from "../../src/cluster/local-copies.ts";
import { ClusterNode } from "../../src/cluster/node.ts";
import { partitionOf } from "../../src/cluster/partition.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { type NatsServer, startNatsServer } from "../helpers/nats-server.ts";
import { pollUntil } from "../helpers/poll.ts";
import { afterPendingMicrotasks } from "../helpers/turn.ts";

/** Two tenant ids of one partition and one of another. */
function tenantIds(): { a: string; b: string; other: string } {
  const a = ulid();
  let b = ulid();
  while (partitionOf(b) !== partitionOf(a)) b = ulid();
  let other = ulid();
  while (partitionOf(other) === partitionOf(a)) other = ulid();
  return { a, b, other };
}

function vaultDirOf(dataDir: string, tenantId: string): string {
  return join(dataDir, "tenants", tenantId);
}

function makeVault(dataDir: string, tenantId: string): void {
  mkdirSync(vaultDirOf(dataDir, tenantId), { recursive: true });
  writeFileSync(join(vaultDirOf(dataDir, tenantId), "data.mdb"), "vault");
}

/** Records what happens, in order; `serves` and `stopRunning` as the test sets them. */
function fakeDeps(dataDir: string) {
  const events: string[] = [];
  const deps: LocalCopiesDeps & { served: Set<number>; running: Promise<void>; clock: ManualClock } = {
    dataDir,
    clock: new ManualClock(),
    served: new Set<number>(),
    running: Promise.resolve(),
    passivateTenant: async (tenantId) => {
      events.push(`closed ${tenantId} (dir present: ${existsSync(vaultDirOf(dataDir, tenantId))})`);
    },
    stopRunning: async (partition) => {
      events.push(`stopping ${partition}`);
      await deps.running;
      events.push(`stopped ${partition}`);
    },
    serves: (partition) => deps.served.has(partition),
    log: () => {},
  };
  return { deps, events };
}

describe("local copies of partitions not served here", () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "mr-local-copies-"));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test("a removal stops what runs, closes each tenant, then removes its directory; other partitions stay", async () => {
    const dataDir = mkdtempSync(join(root, "node-"));
    const { a, b, other } = tenantIds();
    for (const id of [a, b, other]) makeVault(dataDir, id);
    const { deps, events } = fakeDeps(dataDir);
    const running = Promise.withResolvers<void>();
    deps.running = running.promise;
    const copies = new LocalCopies(deps);

    const removal = copies.remove(partitionOf(a));
    await afterPendingMicrotasks();
    // Connectors and workers first: nothing is closed while they may still write.
    expect(events).toEqual([`stopping ${partitionOf(a)}`]);
    expect(existsSync(vaultDirOf(dataDir, a))).toBe(true);
    running.resolve();
    await removal;

    const closed = events.filter((e) => e.startsWith("closed")).sort();
    expect(closed).toEqual([`closed ${a} (dir present: true)`, `closed ${b} (dir present: true)`].sort());
    expect(existsSync(vaultDirOf(dataDir, a))).toBe(false);
    expect(existsSync(vaultDirOf(dataDir, b))).toBe(false);
    expect(existsSync(vaultDirOf(dataDir, other))).toBe(true);
    expect([...tenantsOnDisk(dataDir).keys()]).toEqual([partitionOf(other)]);
  });

  test("a stop that hangs holds the removal (and a re-claim behind it) only for a bounded wait", async () => {
    const dataDir = mkdtempSync(join(root, "node-"));
    const { a } = tenantIds();
    makeVault(dataDir, a);
    const { deps, events } = fakeDeps(dataDir);
    deps.running = new Promise<void>(() => {});
    const copies = new LocalCopies(deps);
    const removal = copies.remove(partitionOf(a));
    await afterPendingMicrotasks();
    deps.clock.advance(STOP_RUNNING_WAIT_MS - 1);
    await afterPendingMicrotasks();
    expect(existsSync(vaultDirOf(dataDir, a))).toBe(true);
    deps.clock.advance(1);
    await removal;
    expect(events).toEqual([`stopping ${partitionOf(a)}`, `closed ${a} (dir present: true)`]);
    expect(existsSync(vaultDirOf(dataDir, a))).toBe(false);
  });

  test("a partition served again by the time its removal runs keeps its vaults", async () => {
    const dataDir = mkdtempSync(join(root, "node-"));
    const { a } = tenantIds();
    makeVault(dataDir, a);
    const { deps, events } = fakeDeps(dataDir);
    deps.served.add(partitionOf(a));
    await new LocalCopies(deps).remove(partitionOf(a));
    expect(existsSync(vaultDirOf(dataDir, a))).toBe(true);
    expect(events.some((e) => e.startsWith("closed"))).toBe(false);
  });

  test("a restore queued while a removal runs starts only after it, and sees nothing of the old copies", async () => {
    const dataDir = mkdtempSync(join(root, "node-"));
    const { a } = tenantIds();
    makeVault(dataDir, a);
    const { deps, events } = fakeDeps(dataDir);
    const running = Promise.withResolvers<void>();
    deps.running = running.promise;
    const copies = new LocalCopies(deps);
    const partition = partitionOf(a);

    const removal = copies.remove(partition);
    const restore = copies.serially(partition, async () => {
      events.push(`restore sees the old vault: ${existsSync(vaultDirOf(dataDir, a))}`);
      makeVault(dataDir, a);
      return "restored";
    });
    await afterPendingMicrotasks();
    expect(events).toEqual([`stopping ${partition}`]);
    running.resolve();
    expect(await restore).toBe("restored");
    await removal;
    expect(events.at(-1)).toBe("restore sees the old vault: false");
    // The restored vault is the partition's served state now: the removal before it did not touch it.
    expect(existsSync(vaultDirOf(dataDir, a))).toBe(true);
  });

  test("a failed step does not stop the next one of its partition", async () => {
    const dataDir = mkdtempSync(join(root, "node-"));
    const { a } = tenantIds();
    makeVault(dataDir, a);
    const { deps } = fakeDeps(dataDir);
    const copies = new LocalCopies(deps);
    const failed = copies.serially(partitionOf(a), async () => {
      throw new Error("restore failed");
    });
    await expect(failed).rejects.toThrow("restore failed");
    await copies.remove(partitionOf(a));
    expect(existsSync(vaultDirOf(dataDir, a))).toBe(false);
  });

  test("at start, every partition held on disk is removed", async () => {
    const dataDir = mkdtempSync(join(root, "node-"));
    const { a, b, other } = tenantIds();
    for (const id of [a, b, other]) makeVault(dataDir, id);
    const { deps } = fakeDeps(dataDir);
    await new LocalCopies(deps).removeAll();
    expect(tenantsOnDisk(dataDir).size).toBe(0);
  });
});

describe("ownership: a partition dropped while being restored", () => {
  let nats: NatsServer;
  const timings: ClusterTimings = { heartbeatMs: 100, liveMs: 400, tickMs: 100, serveMs: 300, staleMs: 500 };
  beforeAll(async () => {
    nats = await startNatsServer();
  });
  afterAll(async () => {
    await nats.stop();
  });

  test("fires onDropped (the removal) without onServing", async () => {
    const restoring = Promise.withResolvers<void>();
    const claimed: number[] = [];
    const serving: Array<[number, boolean]> = [];
    const dropped: number[] = [];
    const node = await ClusterNode.start(
      { servers: [nats.url], nodeId: "solo", timings, snapshots: DEFAULT_SNAPSHOT_POLICY },
      () => {},
      {
        onClaimed: async (partition) => {
          claimed.push(partition);
          await restoring.promise;
        },
        onServing: (partition, on) => serving.push([partition, on]),
        onDropped: (partition) => dropped.push(partition),
      },
    );
    try {
      await pollUntil(
        () => claimed.length,
        (n) => n > 0,
        { timeoutMs: 5000 },
      );
      const partition = claimed[0]!;
      node.ownership.drop(partition, "test: renewal failed");
      expect(dropped).toEqual([partition]);
      expect(serving).toEqual([]);
    } finally {
      restoring.resolve();
      await node.stop();
    }
  });
});
