/**
 * Issue 30, acceptance (b): under the default embedder the model's upgrade replaces each entry's
 * vector exactly once, and a kill -9 of the server in the middle of an upgrade batch loses
 * nothing. Real child processes (test/fakes/tiered-server.ts: the server with its sentence model
 * asking the fake embeddings service, which holds the batch the kill lands in) on real LMDB.
 * After the restart every entry still has a vector, each is the model's, and the model's vectors
 * stored across both processes number the entries: none twice, none lost. And upgrades made after a
 * clean restart, then lost from the unsaved index by a kill -9, are in the index at the next start.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeEmbeddings, startFakeEmbeddings } from "../fakes/embeddings-service.ts";
import type { IndexHealth } from "../helpers/embedding.ts";
import { pollUntil } from "../helpers/poll.ts";
import {
  adminTokenFor,
  createTenantOn,
  httpCall,
  killHard,
  type ServerProcess,
  startServerProcess,
} from "../helpers/server-process.ts";
import { callerOf, foundByMeaning, MODEL_DIMS, PET, tiersOf } from "../helpers/tiered.ts";

const SECRET = "tiered-kill-test-secret-of-at-least-32-bytes";
const CONTENTS = [
  "The boiler is serviced every spring",
  "Parking permits renew in May",
  "The quarterly ledger review moved to Thursday",
  "Invoices above ten thousand need a second approval",
  PET,
  "The warehouse in Lyon closes for inventory in March",
];
/** The batch the kill lands in holds this entry's text. */
const HELD = CONTENTS[2]!;

let fake: FakeEmbeddings;
let dataDir: string;
const servers: ServerProcess[] = [];

beforeAll(() => {
  fake = startFakeEmbeddings(MODEL_DIMS);
  dataDir = mkdtempSync(join(tmpdir(), "mrt-tiered-kill-"));
});
afterAll(async () => {
  for (const s of servers) await killHard(s);
  fake.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(label: string): Promise<ServerProcess> {
  const server = await startServerProcess({
    dataDir,
    secret: SECRET,
    logDir: dataDir,
    label,
    entry: "test/fakes/tiered-server.ts",
    // The default embedder: the variable unset.
    env: { MEMORY_RUNTIME_EMBEDDER: "", TEST_MODEL_URL: fake.url },
  });
  servers.push(server);
  return server;
}

async function indexOf(base: string, tenantId: string, admin: string): Promise<IndexHealth> {
  const res = await httpCall(base, "GET", `/tenants/${tenantId}/healthz`, { token: admin });
  expect(res.status).toBe(200);
  return res.body.index;
}

test("a kill -9 mid-upgrade-batch: every entry keeps a vector, each upgraded exactly once", async () => {
  const admin = await adminTokenFor(SECRET);
  const first = await start("first");
  const { tenant_id: tenantId, token } = await createTenantOn(first.base, admin, "Kill");
  const client = callerOf(first.base);

  fake.setMode("hold", (text) => text === HELD);
  const entries: Array<{ id: string; content: string }> = [];
  for (const content of CONTENTS) {
    const res = await httpCall(first.base, "POST", "/memory/facts", { token, body: { content } });
    expect(res.status).toBe(201);
    entries.push({ id: res.body.id, content });
  }
  // Every write answered with its vector; the model now holds the batch with HELD (one batch at a
  // time), and the batches before it are stored.
  await pollUntil(() => fake.texts.includes(HELD), Boolean, { timeoutMs: 15_000 });
  const before = fake.texts.slice(0, fake.texts.indexOf(HELD));
  const upgradedBefore = before.filter((t) => t !== HELD).length;
  const mid = await pollUntil(
    () => indexOf(first.base, tenantId, admin),
    (i) => i.pending_upgrades === CONTENTS.length - upgradedBefore && i.embedder?.in_flight === 1,
    { timeoutMs: 15_000 },
  );
  expect(mid).toMatchObject({ vectors: CONTENTS.length, pending_vectors: 0 });
  expect(mid.embedder?.embedded).toBe(upgradedBefore);
  await foundByMeaning(client, token, entries[4]!.id);
  await killHard(first);

  fake.setMode("serve");
  const second = await start("second");
  const after = await pollUntil(
    () => indexOf(second.base, tenantId, admin),
    (i) => i.pending_upgrades === 0,
    { timeoutMs: 20_000 },
  );
  expect(after).toMatchObject({ vectors: CONTENTS.length, pending_vectors: 0 });
  // The second process made the model's vectors of exactly the entries the first had not stored.
  expect(after.embedder?.embedded).toBe(CONTENTS.length - upgradedBefore);
  const reader = callerOf(second.base);
  expect(await tiersOf(reader, token, entries)).toEqual(CONTENTS.map(() => "model"));
  // Each text went to the model once, but those of the batch the kill cut, asked again.
  for (const content of CONTENTS)
    expect(fake.texts.filter((t) => t === content).length).toBeLessThanOrEqual(2);
  expect(fake.texts.filter((t) => t === HELD)).toHaveLength(2);
  await killHard(second);
});

test("upgrades made after a restart and lost with a kill -9 reach the index at the next start", async () => {
  const admin = await adminTokenFor(SECRET);
  // The model holds every upgrade while the first process writes, then it stops cleanly: its saved
  // index holds the table's vectors, and the entries are still queued.
  fake.setMode("hold");
  const first = await start("saved");
  const { tenant_id: tenantId, token } = await createTenantOn(first.base, admin, "Saved");
  const content = "The archive moves to tape in June";
  const res = await httpCall(first.base, "POST", "/memory/facts", { token, body: { content } });
  expect(res.status).toBe(201);
  const score = async (base: string) => {
    const found = await httpCall(base, "POST", "/memory/search", { token, body: { query: content } });
    expect(found.body.results[0].entry.id).toBe(res.body.id);
    return found.body.results[0].scores.vector as number;
  };
  const tableScore = await score(first.base);
  first.proc.kill("SIGTERM");
  expect(await first.proc.exited).toBe(0);

  // The second upgrades it (its index takes the model's vector at once), then dies without a save.
  fake.setMode("serve");
  const second = await start("upgraded");
  await pollUntil(
    () => indexOf(second.base, tenantId, admin),
    (i) => i.pending_upgrades === 0,
    { timeoutMs: 15_000 },
  );
  const modelScore = await score(second.base);
  expect(modelScore).toBeLessThan(tableScore);
  await killHard(second);

  // The third opens the index the first saved: the model's vector, not the table's, is searched.
  const third = await start("reopened");
  expect(await score(third.base)).toBeCloseTo(modelScore, 3);
  await killHard(third);
});
