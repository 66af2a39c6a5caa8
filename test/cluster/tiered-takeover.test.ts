/**
 * Issue 30, acceptance (d), cluster part: under the default embedder (`tiered`) a kill -9 of a
 * tenant's owner in the middle of an upgrade batch hands the backlog over whole. Two real nodes
 * on one nats-server (test/fakes/tiered-server.ts: the server with its sentence model asking the
 * fake embeddings service, which holds the batch the kill lands in). The survivor answers every
 * entry with a vector at once and upgrades exactly the entries the owner had not: each entry's
 * vector ends the model's, and the model's vectors stored on both nodes number the entries.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type FakeEmbeddings, startFakeEmbeddings } from "../fakes/embeddings-service.ts";
import {
  createTenantOwnedBy,
  startTestCluster,
  type TestCluster,
  waitForSettled,
} from "../helpers/cluster-processes.ts";
import type { IndexHealth } from "../helpers/embedding.ts";
import { pollUntil } from "../helpers/poll.ts";
import { adminTokenFor, httpCall, killHard } from "../helpers/server-process.ts";
import { callerOf, foundByMeaning, MODEL_DIMS, PET, tiersOf } from "../helpers/tiered.ts";

const SECRET = "cluster-tiered-takeover-secret-of-32-bytes!";
const CONTENTS = [
  "The boiler is serviced every spring",
  "Parking permits renew in May",
  "The quarterly ledger review moved to Thursday",
  PET,
  "The warehouse in Lyon closes for inventory in March",
];
const HELD = CONTENTS[2]!;

let fake: FakeEmbeddings;
let cluster: TestCluster;

beforeAll(async () => {
  fake = startFakeEmbeddings(MODEL_DIMS);
  cluster = await startTestCluster(
    ["t1", "t2"],
    SECRET,
    { MEMORY_RUNTIME_EMBEDDER: "", TEST_MODEL_URL: fake.url },
    "test/fakes/tiered-server.ts",
  );
  await waitForSettled(cluster.nodes);
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
  fake?.stop();
});

async function indexOf(base: string, tenantId: string, admin: string): Promise<IndexHealth> {
  const res = await httpCall(base, "GET", `/tenants/${tenantId}/healthz`, { token: admin });
  if (res.status !== 200) throw new Error(`healthz ${res.status}`);
  return res.body.index;
}

test("a kill -9 of the owner mid-upgrade-batch: the survivor keeps every vector, upgrades the rest once", async () => {
  const admin = await adminTokenFor(SECRET);
  const [survivor, victim] = cluster.nodes as [(typeof cluster.nodes)[0], (typeof cluster.nodes)[0]];
  const tenant = await createTenantOwnedBy(cluster, victim.nodeId, survivor.server.base, admin, "Tiered");
  const base = victim.server.base;

  fake.setMode("hold", (text) => text === HELD);
  const entries: Array<{ id: string; content: string }> = [];
  for (const content of CONTENTS) {
    const res = await httpCall(base, "POST", "/memory/facts", { token: tenant.token, body: { content } });
    expect(res.status).toBe(201);
    entries.push({ id: res.body.id, content });
  }
  await pollUntil(() => fake.texts.includes(HELD), Boolean, { timeoutMs: 15_000 });
  const upgradedBefore = fake.texts.slice(0, fake.texts.indexOf(HELD)).length;
  await pollUntil(
    () => indexOf(base, tenant.id, admin),
    (i) => i.pending_upgrades === CONTENTS.length - upgradedBefore && i.embedder?.in_flight === 1,
    { timeoutMs: 15_000 },
  );
  await killHard(victim.server);

  // The survivor takes the partition over (asked again while it does): every entry has its vector,
  // the table's found by meaning, and those the owner had not upgraded wait for the model.
  const taken = await pollUntil(
    () => indexOf(survivor.server.base, tenant.id, admin).catch(() => undefined),
    (i) => i?.vectors === CONTENTS.length,
    { timeoutMs: 40_000, intervalMs: 100 },
  );
  expect(taken).toMatchObject({ pending_vectors: 0, pending_upgrades: CONTENTS.length - upgradedBefore });
  const reader = callerOf(survivor.server.base);
  await foundByMeaning(reader, tenant.token, entries[3]!.id);

  fake.setMode("serve");
  const after = await pollUntil(
    () => indexOf(survivor.server.base, tenant.id, admin),
    (i) => i.pending_upgrades === 0,
    { timeoutMs: 20_000, intervalMs: 100 },
  );
  expect(after).toMatchObject({ vectors: CONTENTS.length, pending_vectors: 0 });
  // The survivor made the model's vectors of exactly the entries the owner had not stored.
  expect(after.embedder?.embedded).toBe(CONTENTS.length - upgradedBefore);
  expect(await tiersOf(reader, tenant.token, entries)).toEqual(CONTENTS.map(() => "model"));
}, 120_000);
