/**
 * The outbound marker follows a partition's data (src/cluster/outbound-markers.ts): a replay sets it
 * from the subscriptions of the vault it rebuilt, and a snapshot names the tenants that carry it,
 * so loading its files writes the marker again. The whole takeover, with a delivery after it, is
 * takeover-all-state.test.ts; here each step alone, on a real vault and a real nats-server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { syncOutboundMarker } from "../../src/cluster/outbound-markers.ts";
import { Snapshots } from "../../src/cluster/snapshots.ts";
import type { StoredSubscription } from "../../src/models/subscription.ts";
import { markOutbound, outboundMarked } from "../../src/outbound/marker.ts";
import { tenantDir } from "../../src/vault/tenant-paths.ts";
import { TenantVault } from "../../src/vault/tenant-vault.ts";
import { emptySet } from "../../src/vault/write-set.ts";
import { type NatsServer, startNatsServer } from "../helpers/nats-server.ts";

const [MARKED, PLAIN] = ["01JB0000000000000000000001", "01JB0000000000000000000002"];
const roots: string[] = [];
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), "mr-markers-"));
  roots.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of roots) rmSync(dir, { recursive: true, force: true });
});

const subscription = (status: StoredSubscription["status"]): StoredSubscription => ({
  id: "sub_01JB0000000000000000000000",
  url: "http://127.0.0.1:9/hook",
  events: ["entry.created"],
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  status,
  created_at: "2026-12-02T00:00:00.000Z",
  position: 0,
  consecutive_failures: 0,
  last_delivery_at: null,
  last_error: null,
  disabled_at: status === "disabled" ? "2026-12-02T00:00:01.000Z" : null,
  log_seq: 0,
});

describe("a replayed vault's marker", () => {
  test("is set while the vault holds an active subscription, and removed once none is", async () => {
    const vault = new TenantVault(tenantDir(scratch(), MARKED));
    try {
      syncOutboundMarker(vault);
      expect(outboundMarked(vault.dir)).toBe(false);
      await vault.write(emptySet({ outbound: { subscriptions: [subscription("active")] } }));
      syncOutboundMarker(vault);
      expect(outboundMarked(vault.dir)).toBe(true);
      await vault.write(emptySet({ outbound: { subscriptions: [subscription("disabled")] } }));
      syncOutboundMarker(vault);
      expect(outboundMarked(vault.dir)).toBe(false);
    } finally {
      await vault.close();
    }
  });
});

describe("a snapshot", () => {
  let nats: NatsServer;
  let nc: NatsConnection;
  beforeAll(async () => {
    nats = await startNatsServer();
    nc = await connect({ servers: nats.url });
  });
  afterAll(async () => {
    await nc?.close();
    await nats?.stop();
  });

  test("names the tenants whose marker it found, and loading its files writes their markers again", async () => {
    const snapshots = await Snapshots.open(nc);
    const from = scratch();
    for (const tenantId of [MARKED, PLAIN]) {
      mkdirSync(tenantDir(from, tenantId), { recursive: true });
      writeFileSync(join(tenantDir(from, tenantId), "data.mdb"), `vault of ${tenantId}`);
    }
    markOutbound(tenantDir(from, MARKED));
    await snapshots.capture(3, { seq: 7, epoch: 1, tenants: [MARKED, PLAIN] }, from);

    const manifest = await snapshots.latest(3);
    expect(manifest).toEqual({ seq: 7, epoch: 1, tenants: [MARKED, PLAIN], outbound: [MARKED] });
    const to = scratch();
    await snapshots.loadFiles(3, manifest, to);
    expect(outboundMarked(tenantDir(to, MARKED))).toBe(true);
    expect(outboundMarked(tenantDir(to, PLAIN))).toBe(false);
    // A manifest of an earlier version names none: its vaults held no subscriptions.
    const older = scratch();
    await snapshots.loadFiles(3, { seq: 7, epoch: 1, tenants: [MARKED] }, older);
    expect(outboundMarked(tenantDir(older, MARKED))).toBe(false);
  });
});
