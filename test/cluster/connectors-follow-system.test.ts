/**
 * Connectors follow the system state with real processes (docs/cluster.md, "What runs on its own
 * follows the partition"): when a node's system replica applies a tenant's creation, suspension,
 * resumption or deletion, whoever issued it, the tenant's owner reconciles its connectors. The
 * tenant's CRM secrets are in the shared secrets file (and reloaded) before the tenant exists, so
 * only the owner's application of the creation can start its stream. The creation and the
 * resumption are published on `MR_SYSTEM` by the test, as another node would publish them (a
 * tenant's id is fixed only by its creator); the suspension and the deletion go through the
 * non-owner's HTTP API.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jetstream } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { ulid } from "ulid";
import { partitionOf } from "../../src/cluster/partition.ts";
import { SYSTEM_SUBJECT, type SystemCommand } from "../../src/cluster/system-replica.ts";
import {
  crmConnectorSecrets,
  crmKeyPair,
  type FakeCrmPlatform,
  startFakeCrmPlatform,
} from "../fakes/crm-platform.ts";
import {
  type ClusterNodeProcess,
  clusterView,
  startTestCluster,
  type TestCluster,
  waitForSettled,
} from "../helpers/cluster-processes.ts";
import { pollUntil } from "../helpers/poll.ts";
import { adminTokenFor, httpCall } from "../helpers/server-process.ts";

const SECRET = "cluster-connectors-follow-secret-of-at-least-32-bytes";
const keys = crmKeyPair();
let fake: FakeCrmPlatform;
let cluster: TestCluster;
let nc: NatsConnection;
let admin: string;

const publish = async (command: SystemCommand) => {
  await jetstream(nc).publish(SYSTEM_SUBJECT, JSON.stringify(command));
};

async function crmState(node: ClusterNodeProcess, tenantId: string): Promise<string | undefined> {
  const health = await httpCall(node.server.base, "GET", `/tenants/${tenantId}/healthz`, { token: admin });
  return health.body?.connectors?.crm?.state;
}

describe("cluster: connectors follow tenants created, suspended, resumed and deleted elsewhere", () => {
  beforeAll(async () => {
    fake = await startFakeCrmPlatform({ publicKeyPem: keys.publicKeyPem, pollMs: 300 });
    cluster = await startTestCluster(["c1", "c2"], SECRET);
    nc = await connect({ servers: cluster.nats.url });
    admin = await adminTokenFor(SECRET);
    await waitForSettled(cluster.nodes);
  }, 60_000);
  afterAll(async () => {
    await nc?.close();
    await cluster?.stop();
    fake?.stop();
  });

  test("the owner starts the CRM stream of a tenant created elsewhere, stops it when suspended, restarts it when resumed", async () => {
    const [c1, c2] = cluster.nodes as [ClusterNodeProcess, ClusterNodeProcess];
    // A tenant id whose partition c2 serves: c1 is the non-owner every call goes through.
    const owners = (await clusterView(c1)).owners;
    let tenantId = ulid();
    for (let i = 0; i < 500 && owners[partitionOf(tenantId)] !== "c2"; i++) tenantId = ulid();
    expect(owners[partitionOf(tenantId)]).toBe("c2");
    await cluster.setSecrets(tenantId, crmConnectorSecrets(fake, keys), admin);
    expect(fake.liveStreams()).toBe(0);

    await publish({
      op: "createTenant",
      tenant: {
        tenant_id: tenantId,
        name: "Followed Co",
        status: "active",
        created_at: new Date().toISOString(),
      },
    });
    // No reload: the owner's replica applied the creation and started the stream there.
    expect(
      await pollUntil(
        () => crmState(c1, tenantId),
        (state) => state === "connected",
        { timeoutMs: 10_000 },
      ),
    ).toBe("connected");
    expect(fake.liveStreams()).toBe(1);
    // An event the platform publishes reaches the owner's stream.
    const event = fake.publish("Account", "CREATE", ["001xx000003DGb2AAG"], { Name: "Followed" });
    const health = await pollUntil(
      () => httpCall(c1.server.base, "GET", `/tenants/${tenantId}/healthz`, { token: admin }),
      (answer) => answer.body?.connectors?.crm?.events === 1,
      { timeoutMs: 10_000 },
    );
    expect(health.body.connectors.crm.replay["/data/ChangeEvents"]).toBe(event.replayId);

    // Suspended through the non-owner: the stream stops.
    expect(
      (await httpCall(c1.server.base, "POST", `/admin/tenants/${tenantId}/suspend`, { token: admin })).status,
    ).toBe(200);
    await pollUntil(
      () => fake.liveStreams(),
      (open) => open === 0,
      { timeoutMs: 10_000 },
    );
    expect(await crmState(c1, tenantId)).toBe("stopped");

    // Resumed by a command another node published: the owner starts it again.
    await publish({ op: "setTenantStatus", tenantId, status: "active" });
    expect(
      await pollUntil(
        () => crmState(c2, tenantId),
        (state) => state === "connected",
        { timeoutMs: 10_000 },
      ),
    ).toBe("connected");
    expect(fake.liveStreams()).toBe(1);

    // Suspended by another node's command, then deleted through the non-owner: stopped, and gone.
    await publish({ op: "setTenantStatus", tenantId, status: "suspended" });
    await pollUntil(
      () => fake.liveStreams(),
      (open) => open === 0,
      { timeoutMs: 10_000 },
    );
    expect(
      (await httpCall(c1.server.base, "DELETE", `/admin/tenants/${tenantId}`, { token: admin })).status,
    ).toBe(200);
    expect(
      (await httpCall(c2.server.base, "GET", `/tenants/${tenantId}/healthz`, { token: admin })).status,
    ).toBe(404);
    expect(fake.liveStreams()).toBe(0);
  }, 60_000);
});
