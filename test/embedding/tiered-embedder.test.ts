/**
 * MEMORY_RUNTIME_EMBEDDER=tiered (issue 30, item 2), black-box over the HTTP API: a write is
 * answered with the static tier's vector already committed (nothing pending, found by meaning at
 * once) and queued for the sentence model, whose vector replaces it once, across a restart too.
 * The sentence model is a fake that answers only when the test releases a call, so what is
 * stored before and after the upgrade is the subject, never timing.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { LocalModel } from "../../src/embedding/local-model.ts";
import { StaticEmbedder } from "../../src/embedding/static-embedder.ts";
import { healthUntil, indexHealth } from "../helpers/embedding.ts";
import { GatedModel, gatedLocalModel, upgradedModelVector } from "../helpers/gated-model.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { pollUntil } from "../helpers/poll.ts";
import { cosine } from "../helpers/tiered.ts";

const PET = "Olga adopted a kitten from the shelter in May";
const NOTES = ["Lunch is served in the canteen from twelve to two", PET];

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function tiered(model: GatedModel): Promise<Harness> {
  h = await startHarness({ env: { MEMORY_RUNTIME_EMBEDDER: "tiered" }, localModel: gatedLocalModel(model) });
  return h;
}

async function note(h: Harness, token: string, content: string): Promise<string> {
  const res = await h.json("POST", "/memory/facts", { token, body: { content } });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function embeddingOf(h: Harness, token: string, id: string): Promise<number[]> {
  const read = await h.json("GET", `/memory/facts/${id}?include=embedding`, { token });
  expect(read.status).toBe(200);
  return read.body.embedding;
}

/** The question shares no word with PET's note: only a vector finds it. */
async function petFound(h: Harness, token: string, pet: string): Promise<void> {
  const res = await h.json("POST", "/memory/search", { token, body: { query: "what animal does she own?" } });
  expect(res.status).toBe(200);
  expect(res.body.results[0].entry.id).toBe(pet);
  expect(res.body.results[0].scores.lexical).toBe(0);
  expect(res.body.pending_vectors).toBeUndefined();
}

describe("MEMORY_RUNTIME_EMBEDDER=tiered", () => {
  test("a write's static vector is in its commit, found by meaning at once, then upgraded once", async () => {
    const model = new GatedModel();
    const h = await tiered(model);
    const { token, tenant_id } = await h.createTenant();
    const ids: string[] = [];
    for (const content of NOTES) ids.push(await note(h, token, content));
    const pet = ids[1]!;

    const before = await indexHealth(h, tenant_id);
    expect(before.pending_vectors).toBe(0);
    expect(before.pending_upgrades).toBe(2);
    expect(before.vectors).toBe(2);
    const staticVector = new StaticEmbedder().embedSync(PET);
    expect(cosine(await embeddingOf(h, token, pet), staticVector)).toBeGreaterThan(0.999);
    // The model holds its first batch: the search's query vector is the table's, not waiting.
    await model.holding(1);
    await petFound(h, token, pet);

    model.open();
    const after = await healthUntil(h, tenant_id, (index) => index.pending_upgrades === 0);
    expect(after.pending_vectors).toBe(0);
    expect(after.vectors).toBe(2);
    for (const [i, id] of ids.entries())
      expect(cosine(await embeddingOf(h, token, id), upgradedModelVector(NOTES[i]!))).toBeGreaterThan(0.999);
    // Each text went to the model once, and the query never did.
    expect([...model.texts].sort()).toEqual([...NOTES].sort());
  });

  test("a batch's items and a bridge message have their vectors in their commits too", async () => {
    const model = new GatedModel();
    const h = await tiered(model);
    const { token, tenant_id } = await h.createTenant();
    const entries = NOTES.map((content) => ({ content }));
    const batch = await h.json("POST", "/memory/facts/batch", { token, body: { entries } });
    expect(batch.status).toBe(201);
    const result = await h.runtime.bridge.deliver(tenant_id, {
      type: "message",
      channel: "C024BE91L",
      user: "U2147483697",
      text: "the quarterly ledger review moves to Thursday",
      ts: "1763720000.000100",
    });
    expect(result.entries).toHaveLength(1);
    const index = await indexHealth(h, tenant_id);
    expect(index).toMatchObject({ vectors: 3, pending_vectors: 0, pending_upgrades: 3 });
    await petFound(h, token, batch.body.entries[1].id);
    model.open();
    const after = await healthUntil(h, tenant_id, (i) => i.pending_upgrades === 0);
    expect(after).toMatchObject({ vectors: 3, pending_vectors: 0 });
  });

  test("a restart between the commit and the upgrade keeps the static vector and upgrades once", async () => {
    const model = new GatedModel();
    const h = await tiered(model);
    const { token, tenant_id } = await h.createTenant();
    const pet = await note(h, token, PET);
    // The model holds the upgrade while the runtime stops: the queue record is all that is left.
    await model.holding(1);
    await h.restart();

    const reopened = await indexHealth(h, tenant_id);
    expect(reopened.pending_vectors).toBe(0);
    expect(reopened.pending_upgrades).toBe(1);
    const staticVector = new StaticEmbedder().embedSync(PET);
    expect(cosine(await embeddingOf(h, token, pet), staticVector)).toBeGreaterThan(0.999);

    // The stopped runtime's batch comes back to a closed backlog and is dropped; the new one's is stored.
    model.open();
    const after = await healthUntil(h, tenant_id, (index) => index.pending_upgrades === 0);
    expect(after.pending_vectors).toBe(0);
    expect(after.vectors).toBe(1);
    expect(cosine(await embeddingOf(h, token, pet), upgradedModelVector(PET))).toBeGreaterThan(0.999);
    expect(model.texts).toEqual([PET, PET]);
  });
});

describe("the default embedder (MEMORY_RUNTIME_EMBEDDER unset)", () => {
  test("is tiered: answers before the model has loaded, every write with its vector at once", async () => {
    // The model's load never ends in this test: nothing the service answers may wait for it.
    let loads = 0;
    const loading = new LocalModel({
      load: () => {
        loads++;
        return new Promise<GatedModel>(() => undefined);
      },
    });
    h = await startHarness({ env: { MEMORY_RUNTIME_EMBEDDER: "" }, localModel: loading });
    expect((await h.call("GET", "/healthz")).status).toBe(200);
    const { token, tenant_id } = await h.createTenant();
    const ids: string[] = [];
    for (const content of NOTES) ids.push(await note(h, token, content));
    const index = await indexHealth(h, tenant_id);
    expect(index).toMatchObject({ vectors: 2, pending_vectors: 0, pending_upgrades: 2 });
    expect(index.embedder?.kind).toBe("tiered");
    await petFound(h, token, ids[1]!);
    // The upgrade asked for the model, in the background: once, for every batch waiting on it.
    expect(
      await pollUntil(
        async () => loads,
        (n) => n > 0,
      ),
    ).toBe(1);
  });
});
