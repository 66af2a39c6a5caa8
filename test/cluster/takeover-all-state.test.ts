/**
 * Every piece of a tenant's state follows a `kill -9` takeover (issue 28, item 3), with real
 * processes: three nodes on one nats-server, a tenant on the node about to die, and on it one of
 * everything a tenant holds (tenant-state.ts): entries of each category, a supersession, a
 * retraction, an erasure, an idempotency record, an accepted webhook delivery (its dedupe record),
 * a dead letter, a paused source holding two events, a subscription with its deliveries to a
 * local receiver, the CRM stream's position and the embedding backlog (the embeddings service
 * fails throughout, so no vector is made on either node). After the owner's SIGKILL the node
 * that took its partition over answers all of it unchanged through the public API; it resumes
 * the CRM stream after the stored position, delivers the next event to the subscription once,
 * answers the accepted delivery again as a duplicate, and a resume releases the held events once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { partitionOf } from "../../src/cluster/partition.ts";
import {
  crmConnectorSecrets,
  crmKeyPair,
  type FakeCrmPlatform,
  startFakeCrmPlatform,
} from "../fakes/crm-platform.ts";
import { type FakeEmbeddings, startFakeEmbeddings } from "../fakes/embeddings-service.ts";
import {
  type ClusterNodeProcess,
  clusterView,
  createTenantOwnedBy,
  startTestCluster,
  type TestCluster,
  waitForSettled,
} from "../helpers/cluster-processes.ts";
import { pollUntil } from "../helpers/poll.ts";
import { adminTokenFor, httpCall, killHard } from "../helpers/server-process.ts";
import { Receiver } from "../outbound/receiver.ts";
import {
  deliverRows,
  readTenantState,
  type TenantState,
  WEBHOOK_SECRETS,
  writeEntries,
  writeWebhookState,
} from "./tenant-state.ts";

const SECRET = "cluster-takeover-all-state-secret-of-32-bytes!";
const DIMS = 16;
const keys = crmKeyPair();

let crm: FakeCrmPlatform;
let embeddings: FakeEmbeddings;
let receiver: Receiver;
let cluster: TestCluster;

/** The tenant's health as `base` answers it (forwarded to the owner when `base` is not it). */
async function health(base: string, tenantId: string, admin: string) {
  return httpCall(base, "GET", `/tenants/${tenantId}/healthz`, { token: admin });
}

/** The change seq of a delivery the receiver got (its `webhook-id` is `msg_<tenant>_<seq>`). */
const seqOf = (webhookId: string | undefined) => Number(webhookId?.split("_").at(-1));

describe("cluster: a kill -9 takeover keeps all of a tenant's state (3 nodes)", () => {
  beforeAll(async () => {
    crm = await startFakeCrmPlatform({ publicKeyPem: keys.publicKeyPem, pollMs: 300 });
    embeddings = startFakeEmbeddings(DIMS);
    embeddings.setMode("fail");
    receiver = await Receiver.start();
    cluster = await startTestCluster(["a1", "a2", "a3"], SECRET, {
      MEMORY_RUNTIME_EMBEDDER: "http",
      MEMORY_RUNTIME_EMBEDDINGS_URL: embeddings.url,
      MEMORY_RUNTIME_EMBEDDING_DIMS: String(DIMS),
      // Periodic snapshots during the set-up: the survivor restores from a snapshot and the log after it.
      MEMORY_RUNTIME_CLUSTER_SNAPSHOT_RECORDS: "10",
    });
    await waitForSettled(cluster.nodes);
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
    await receiver?.stop();
    embeddings?.stop();
    crm?.stop();
  });

  test("the survivor answers every piece of state unchanged and delivers the next event once", async () => {
    const admin = await adminTokenFor(SECRET);
    const victim = cluster.nodes[1]!;
    const placed = await createTenantOwnedBy(
      cluster,
      victim.nodeId,
      cluster.nodes[0]!.server.base,
      admin,
      "All",
    );
    const tenant = { id: placed.id, token: placed.token };
    const base = victim.server.base;
    await cluster.setSecrets(tenant.id, { ...WEBHOOK_SECRETS, ...crmConnectorSecrets(crm, keys) }, admin);
    await pollUntil(
      () => health(base, tenant.id, admin),
      (h) => h.body?.connectors?.crm?.state === "connected",
      { timeoutMs: 15_000, intervalMs: 50 },
    );

    // Entries (and the erasure) before the subscription, so the deliveries counted are the takeover's
    // alone. (An erasure racing a delivery worker's record is its own test:
    // test/actors/tenant/outbound-write-sets.test.ts.)
    const written = await writeEntries(base, tenant, admin);
    const subscribed = await httpCall(base, "POST", `/admin/subscriptions/${tenant.id}`, {
      token: admin,
      body: { url: receiver.url(), events: ["entry.created", "entry.retracted"] },
    });
    expect(subscribed.status).toBe(201);
    const hooks = await writeWebhookState(base, tenant.id, admin);
    const event = crm.publish("Account", "CREATE", ["001xx000003DGb2AAG"], { Name: "Acme" });
    await pollUntil(
      () => health(base, tenant.id, admin),
      (h) => h.body?.connectors?.crm?.replay?.["/data/ChangeEvents"] === event.replayId,
      { timeoutMs: 15_000, intervalMs: 50 },
    );
    // The last change before the kill: once the receiver has it, it has every earlier one.
    const last = await httpCall(base, "POST", "/memory/facts", {
      token: tenant.token,
      body: { content: "The last change before the kill" },
    });
    expect(last.status).toBe(201);
    const [lastDelivery] = (await pollUntil(
      () => receiver.received.filter((r) => r.json?.data?.entry?.id === last.body.id),
      (found) => found.length === 1,
      { timeoutMs: 20_000, intervalMs: 50 },
    ))!;
    const lastSeq = seqOf(lastDelivery!.headers["webhook-id"]);
    // Its position and log record are committed after the receiver's answer.
    await pollUntil(
      () =>
        httpCall(base, "GET", `/admin/subscriptions/${tenant.id}/${subscribed.body.id}/deliveries`, {
          token: admin,
        }),
      (answer) => answer.body?.deliveries?.[0]?.change_seq === lastSeq,
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    await pollUntil(
      () => httpCall(base, "GET", `/admin/subscriptions/${tenant.id}`, { token: admin }),
      (answer) => answer.body?.subscriptions?.[0]?.position === lastSeq,
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    const deliveredBefore = receiver.received.length;

    const state: TenantState = { ...tenant, ...written, ...hooks, subscription: subscribed.body.id };
    const before = await readTenantState(base, state, admin);
    // What is compared below holds what the set-up made (a read-back of nothing proves nothing).
    const { pending_vectors: backlog, ...counts } = before.health;
    // Every live entry waits for its vector (the service fails): the backlog is not empty.
    expect(backlog).toBeGreaterThan(5);
    expect(counts).toMatchObject({
      http: 200,
      vectors: 0,
      dead_letters: 1,
      crm: { events: 1, replay: { "/data/ChangeEvents": event.replayId } },
    });
    expect(before["idempotent replay"]).toMatchObject({
      body: { id: written.idempotent.id },
      replayed: "true",
    });
    expect(before["erased entry"]).toMatchObject({ status: 410 });
    expect(before["erasure dry run"]).toMatchObject({ report: { already_erased: [written.erased.id] } });
    expect(
      before.sources.body.sources.find((s: { source: string }) => s.source === "standard"),
    ).toMatchObject({
      status: "paused",
      held: 2,
    });
    expect(before.subscriptions.body.subscriptions).toHaveLength(1);
    expect(before["subscription deliveries"].body.deliveries).toHaveLength(deliveredBefore);

    const streamsBefore = crm.lastEventIds.length;
    await killHard(victim.server);
    const survivors = cluster.nodes.filter((n) => n !== victim);
    await waitForSettled(survivors, 30_000);
    const ownerId = (await clusterView(survivors[0]!)).owners[partitionOf(tenant.id)];
    const owner = survivors.find((n) => n.nodeId === ownerId) as ClusterNodeProcess;
    expect(owner).toBeDefined();
    const after = owner.server.base;
    await pollUntil(
      () => health(after, tenant.id, admin),
      (h) => h.status === 200,
      { timeoutMs: 20_000, intervalMs: 50 },
    );

    expect(await readTenantState(after, state, admin)).toEqual(before);

    // The CRM stream resumes on the survivor after the stored position.
    await pollUntil(
      () => crm.lastEventIds.length,
      (n) => n > streamsBefore,
      { timeoutMs: 20_000, intervalMs: 50 },
    );
    expect(crm.lastEventIds.at(-1)).toBe(String(event.replayId));

    // The next event reaches the subscription once: nothing delivered before is sent again.
    const next = await httpCall(after, "POST", "/memory/facts", {
      token: tenant.token,
      body: { content: "The first change after the takeover" },
    });
    expect(next.status).toBe(201);
    const arrived = await receiver.waitFor(deliveredBefore + 1, 20_000);
    expect(arrived.at(-1)!.json.data.entry.id).toBe(next.body.id);
    const nextSeq = seqOf(arrived.at(-1)!.headers["webhook-id"]);
    await pollUntil(
      () => httpCall(after, "GET", `/admin/subscriptions/${tenant.id}`, { token: admin }),
      (answer) => answer.body?.subscriptions?.[0]?.position === nextSeq,
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    expect(receiver.received.length).toBe(deliveredBefore + 1);

    // The accepted delivery's dedupe record: its row sent again is a duplicate. With a new row
    // beside it, so that the intake stream's own deduplication (same event ids within two
    // minutes: one message) does not absorb it before the vault is asked.
    const fresh = { event_id: "exp-after-takeover", kind: "fact", content: "Exported after the takeover" };
    const again = await deliverRows(after, tenant.id, [hooks.acceptedRow, fresh]);
    expect({ status: again.status, body: again.body }).toMatchObject({
      status: 200,
      body: { accepted: 1, duplicates: 1 },
    });
    // The held events themselves moved: a resume writes each once.
    const resumed = await httpCall(after, "POST", `/admin/webhooks/sources/${tenant.id}/standard/resume`, {
      token: admin,
    });
    expect(resumed.body).toEqual({ source: "standard", status: "active", held: 0 });
    const log = await httpCall(after, "GET", `/admin/webhooks/deliveries/${tenant.id}?outcome=accepted`, {
      token: admin,
    });
    expect(log.body.deliveries.filter((d: { via: string }) => d.via === "resume")).toHaveLength(2);
  }, 180_000);
});
