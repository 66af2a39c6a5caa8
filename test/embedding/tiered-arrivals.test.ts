/**
 * Issue 30, acceptance (a), under the default embedder (`tiered`): every kind of arrival — a
 * single write, a batch item, a webhook event through its signed source route, a bridge message,
 * an import — has its vector in the commit that stores it. Right after each, nothing waits for a
 * vector and a question sharing no word with the entry finds it; the sentence model (the fake
 * service, held back throughout) has upgraded nothing yet. Imports keep what is comparable: the
 * table's vectors queued for the model, the model's kept, another embedder's remade by the table.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { paymentsSender, stripeEvent } from "../fakes/senders/payments.ts";
import { healthUntil, indexHealth } from "../helpers/embedding.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { pollUntil } from "../helpers/poll.ts";
import {
  foundByMeaning,
  MODEL_DIMS,
  PET,
  tieredHarness,
  tiersOf,
  useTieredRuntime,
} from "../helpers/tiered.ts";
import { setSecrets } from "../helpers/webhooks.ts";

const rt = useTieredRuntime();
// The model holds every upgrade: what is found is the table's vector, in the write's commit.
beforeEach(() => rt.fake.setMode("hold"));

const FILLER = "Lunch is served in the canteen from twelve to two";

/** Nothing waits for a vector; `upgrades` entries wait for the model's. */
async function vectoredAtOnce(tenantId: string, entries: number, upgrades = entries): Promise<void> {
  expect(await indexHealth(rt.h, tenantId)).toMatchObject({
    vectors: entries,
    pending_vectors: 0,
    pending_upgrades: upgrades,
  });
}

describe("every arrival has its vector in its commit (the default embedder)", () => {
  test("a single write", async () => {
    const t = await rt.h.createTenant();
    const res = await rt.h.json("POST", "/memory/facts", { token: t.token, body: { content: PET } });
    expect(res.status).toBe(201);
    await vectoredAtOnce(t.tenant_id, 1);
    await foundByMeaning(rt.h, t.token, res.body.id);
    expect(await tiersOf(rt.h, t.token, [{ id: res.body.id, content: PET }])).toEqual(["static"]);
  });

  test("a batch item", async () => {
    const t = await rt.h.createTenant();
    const entries = [{ content: FILLER }, { content: PET }];
    const res = await rt.h.json("POST", "/memory/facts/batch", { token: t.token, body: { entries } });
    expect(res.status).toBe(201);
    await vectoredAtOnce(t.tenant_id, 2);
    await foundByMeaning(rt.h, t.token, res.body.entries[1].id);
  });

  test("a webhook event through its signed source route", async () => {
    const t = await rt.h.createTenant();
    setSecrets(rt.h, t.tenant_id, paymentsSender.secrets);
    const body = stripeEvent("payment_intent.succeeded", {
      id: "pi_3Q0kitten",
      amount_received: 4200,
      currency: "eur",
      customer: "cus_olga",
      description: PET,
    });
    const url = `/webhooks/payments/${t.tenant_id}`;
    const signed = await paymentsSender.sign(body, { now: Date.now(), url });
    const res = await rt.h.json("POST", url, { raw: signed.body as string, headers: signed.headers });
    expect(res.status).toBe(200);
    expect(res.body.entries).toHaveLength(1);
    await vectoredAtOnce(t.tenant_id, 1);
    await foundByMeaning(rt.h, t.token, res.body.entries[0]);
  });

  test("a bridge message", async () => {
    const t = await rt.h.createTenant();
    const result = await rt.h.runtime.bridge.deliver(t.tenant_id, {
      type: "message",
      channel: "C024BE91L",
      user: "U2147483697",
      text: PET,
      ts: "1763720000.000100",
    });
    expect(result.entries).toHaveLength(1);
    await vectoredAtOnce(t.tenant_id, 1);
    await foundByMeaning(rt.h, t.token, result.entries[0]!);
  });
});

/** A tenant of `runtime` holding FILLER and PET, and its export; `ids` in that order. */
async function exportOf(runtime: Harness): Promise<{ text: string; ids: string[] }> {
  const t = await runtime.createTenant();
  const ids: string[] = [];
  for (const content of [FILLER, PET]) {
    const res = await runtime.json("POST", "/memory/facts", { token: t.token, body: { content } });
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
  await healthUntil(runtime, t.tenant_id, (i) => i.vectors === 2 && i.pending_vectors === 0);
  const res = await runtime.call("GET", `/admin/tenants/${t.tenant_id}/export`, {
    token: runtime.adminToken,
  });
  expect(res.status).toBe(200);
  return { text: await res.text(), ids };
}

/** Imports `text` into a new tenant of the default runtime. */
async function importInto(text: string) {
  const t = await rt.h.createTenant();
  const res = await rt.h.call("POST", `/admin/tenants/${t.tenant_id}/import`, {
    token: rt.h.adminToken,
    raw: text,
    headers: { "content-type": "application/x-ndjson" },
  });
  expect(res.status).toBe(200);
  return { ...t, body: (await res.json()) as { imported: { embeddings: number } } };
}

const embeddingLines = (text: string) =>
  text
    .split("\n")
    .filter((l) => l.includes('"type":"embedding"'))
    .map((l) => JSON.parse(l) as { key: string; tier?: string });

describe("an import under the default embedder", () => {
  test("of its own export: the table's vectors kept, said so per line, and queued for the model", async () => {
    const { text, ids } = await exportOf(rt.h);
    expect(text.split("\n", 1)[0]).toContain(`"embedder":"tiered/${MODEL_DIMS}"`);
    expect(embeddingLines(text).map((l) => l.tier)).toEqual(["static", "static"]);
    const copy = await importInto(text);
    expect(copy.body.imported.embeddings).toBe(2);
    await vectoredAtOnce(copy.tenant_id, 2);
    await foundByMeaning(rt.h, copy.token, ids[1]!);
    // Upgraded once the model answers (exactly once each, across a kill -9: tiered-kill.test.ts).
    rt.fake.setMode("serve");
    await healthUntil(rt.h, copy.tenant_id, (i) => i.pending_upgrades === 0);
    const contents = [FILLER, PET];
    expect(
      await tiersOf(
        rt.h,
        copy.token,
        ids.map((id, i) => ({ id, content: contents[i]! })),
      ),
    ).toEqual(["model", "model"]);
  });

  test("of the model's vectors (an export of `local`): kept, nothing queued", async () => {
    rt.fake.setMode("serve");
    const local = await tieredHarness(rt.fake, { env: { MEMORY_RUNTIME_EMBEDDER: "local" } });
    try {
      const { text, ids } = await exportOf(local);
      expect(embeddingLines(text).map((l) => l.tier)).toEqual(["model", "model"]);
      rt.fake.setMode("hold");
      const copy = await importInto(text);
      expect(copy.body.imported.embeddings).toBe(2);
      await vectoredAtOnce(copy.tenant_id, 2, 0);
      const contents = ids.map((id, i) => ({ id, content: [FILLER, PET][i]! }));
      expect(await tiersOf(rt.h, copy.token, contents)).toEqual(["model", "model"]);
    } finally {
      await local.close();
    }
  });

  test("of another embedder's vectors (hash): each entry given the table's at once, queued", async () => {
    const hashed = await startHarness();
    try {
      const { text, ids } = await exportOf(hashed);
      expect(embeddingLines(text).map((l) => l.tier)).toEqual([undefined, undefined]);
      const copy = await importInto(text);
      expect(copy.body.imported.embeddings).toBe(0);
      await vectoredAtOnce(copy.tenant_id, 2);
      await foundByMeaning(rt.h, copy.token, ids[1]!);
    } finally {
      await hashed.close();
    }
  });

  test("of an export of before `tier` (its own embedder's): kept and queued for the model", async () => {
    const { text, ids } = await exportOf(rt.h);
    const older = text.replaceAll(',"tier":"static"', "");
    expect(older).not.toContain('"tier"');
    const copy = await importInto(older);
    expect(copy.body.imported.embeddings).toBe(2);
    await vectoredAtOnce(copy.tenant_id, 2);
    await foundByMeaning(rt.h, copy.token, ids[1]!);
  });
});

describe("an erasure under the default embedder", () => {
  test("an entry erased while the model upgrades it leaves the backlog; the others are upgraded", async () => {
    const t = await rt.h.createTenant();
    // Only this text is held (the other tests' upgrades go on): its batch is in flight at the erasure.
    const erasedText = "Ada's phone number is private";
    rt.fake.setMode("serve");
    rt.fake.setMode("hold", (text) => text === erasedText);
    const erasing = await rt.h.json("POST", "/memory/facts", {
      token: t.token,
      body: { content: erasedText },
    });
    expect(erasing.status).toBe(201);
    const kept = await rt.h.json("POST", "/memory/facts", { token: t.token, body: { content: FILLER } });
    await vectoredAtOnce(t.tenant_id, 2);
    await pollUntil(() => rt.fake.texts.includes(erasedText), Boolean, { timeoutMs: 15_000 });
    const erased = await rt.h.json("POST", `/admin/tenants/${t.tenant_id}/erase`, {
      token: rt.h.adminToken,
      body: { ids: [erasing.body.id] },
    });
    expect(erased.status).toBe(200);
    expect(await indexHealth(rt.h, t.tenant_id)).toMatchObject({ vectors: 1, pending_vectors: 0 });

    // The model's answer for the erased entry comes back and is dropped; the other is upgraded.
    rt.fake.setMode("serve");
    const done = await healthUntil(rt.h, t.tenant_id, (i) => i.pending_upgrades === 0);
    expect(done).toMatchObject({ vectors: 1, pending_vectors: 0 });
    expect(await tiersOf(rt.h, t.token, [{ id: kept.body.id, content: FILLER }])).toEqual(["model"]);
    expect((await rt.h.json("GET", `/memory/facts/${erasing.body.id}`, { token: t.token })).status).toBe(410);
  });
});
