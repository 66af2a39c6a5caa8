/**
 * Cluster placement of what runs on its own (the placement port, src/ports/runtime-ports.ts `servedHere`, with
 * `placementChanged` called by src/cluster/serve.ts as partitions start and stop being served): a tenant's connectors and
 * outbound worker run only where its partition is served, and the messaging bridge refuses its
 * events elsewhere (503) instead of queueing writes the owner would not see.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BridgeNotServedHere } from "../../src/bridge/bridge.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import {
  crmConnectorSecrets,
  crmKeyPair,
  type FakeCrmPlatform,
  startFakeCrmPlatform,
} from "../fakes/crm-platform.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { pollUntil } from "../helpers/poll.ts";
import { setSecrets } from "../helpers/webhooks.ts";

const clock = new ManualClock();
const keys = crmKeyPair();
let fake: FakeCrmPlatform;
let h: Harness;
/** What the placement port answers: this "node" serves every tenant but these. */
const servedElsewhere = new Set<string>();
const placement = {
  servedHere: (tenantId: string) => !servedElsewhere.has(tenantId),
  vaultRefusal: () => undefined,
};

beforeAll(async () => {
  fake = await startFakeCrmPlatform({ publicKeyPem: keys.publicKeyPem, now: () => clock.now(), pollMs: 300 });
  h = await startHarness({ clock, ports: { placement } });
});
afterAll(async () => {
  servedElsewhere.clear();
  await h.close();
  fake.stop();
});

const connectorsOf = async (tenantId: string) =>
  (await h.json("GET", `/tenants/${tenantId}/healthz`, { token: h.adminToken })).body.connectors;

describe("connectors follow partition placement", () => {
  test("a tenant's CRM stream stops when its partition leaves the node and restarts when it comes back", async () => {
    const t = await h.createTenant();
    setSecrets(h, t.tenant_id, crmConnectorSecrets(fake, keys));
    await h.runtime.startConnectorsFor(t.tenant_id);
    await pollUntil(
      () => connectorsOf(t.tenant_id),
      (connectors) => connectors?.crm?.state === "connected",
      { timeoutMs: 4000 },
    );

    // The partition moves away: nothing of the tenant runs here any more.
    servedElsewhere.add(t.tenant_id);
    await h.runtime.placementChanged([t.tenant_id]);
    expect((await connectorsOf(t.tenant_id))?.crm?.state).toBe("stopped");
    expect(h.runtime.services.outbound.isRunning(t.tenant_id)).toBe(false);
    const refused = await h.runtime.bridge.deliver(t.tenant_id, {}).catch((error) => error);
    expect(refused).toBeInstanceOf(BridgeNotServedHere);
    expect(refused.status).toBe(503);
    expect(refused.headers["retry-after"]).toBe("1");

    // It comes back: the connector starts again with the same secrets.
    servedElsewhere.delete(t.tenant_id);
    await h.runtime.placementChanged([t.tenant_id]);
    await pollUntil(
      () => connectorsOf(t.tenant_id),
      (connectors) => connectors?.crm?.state === "connected",
      { timeoutMs: 4000 },
    );
    const validation = await h.runtime.bridge.deliver(t.tenant_id, {}).catch((error) => error);
    expect(validation).not.toBeInstanceOf(BridgeNotServedHere);
  });
});
