/**
 * Issue 30: switching between `local` and `tiered` (the default), one 512-d space, keeps what the
 * new embedder would make itself instead of embedding every entry again. `local` → `tiered`: the
 * model's vectors are kept (they are the upgrade), and an entry still waiting for the model gets
 * the table's at once. `tiered` → `local`: the model's are kept, the table's dropped and remade by
 * the model. Black-box over HTTP, restarts on one data directory; the model is the fake service.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { healthUntil, indexHealth } from "../helpers/embedding.ts";
import { pollUntil } from "../helpers/poll.ts";
import { foundByMeaning, PET, tiersOf, useTieredRuntime } from "../helpers/tiered.ts";

const FILLER = "Lunch is served in the canteen from twelve to two";

const rt = useTieredRuntime();
beforeEach(() => rt.fake.setMode("serve"));

/** Restarts the runtime on the same data directory with MEMORY_RUNTIME_EMBEDDER=`embedder` ("": the default). */
async function restartWith(embedder: string): Promise<void> {
  rt.h.env.MEMORY_RUNTIME_EMBEDDER = embedder;
  await rt.h.restart();
}

async function write(token: string, content: string): Promise<string> {
  const res = await rt.h.json("POST", "/memory/facts", { token, body: { content } });
  expect(res.status).toBe(201);
  return res.body.id;
}

/** A tenant with FILLER embedded by the model and PET held back from it. */
async function filledAndHeld(tenantId: string, token: string) {
  const filler = await write(token, FILLER);
  await healthUntil(rt.h, tenantId, (i) => i.vectors === 1 && i.pending_vectors === 0 && !i.pending_upgrades);
  rt.fake.setMode("hold", (text) => text === PET);
  const asked = rt.fake.requests;
  const pet = await write(token, PET);
  await rt.fake.received(asked + 1);
  return [
    { id: filler, content: FILLER },
    { id: pet, content: PET },
  ];
}

const modelAsked = (content: string) => rt.fake.texts.filter((t) => t === content).length;

describe("a switch within the sentence model's space", () => {
  test("local → tiered: the model's vectors kept, an entry still waiting given the table's at once", async () => {
    await restartWith("local");
    const t = await rt.h.createTenant();
    const entries = await filledAndHeld(t.tenant_id, t.token);
    expect(await tiersOf(rt.h, t.token, entries)).toEqual(["model", "none"]);

    await restartWith("");
    expect(await indexHealth(rt.h, t.tenant_id)).toMatchObject({
      vectors: 2,
      pending_vectors: 0,
      pending_upgrades: 1,
    });
    expect(await tiersOf(rt.h, t.token, entries)).toEqual(["model", "static"]);
    await foundByMeaning(rt.h, t.token, entries[1]!.id);

    rt.fake.setMode("serve");
    await healthUntil(rt.h, t.tenant_id, (i) => i.pending_upgrades === 0);
    expect(await tiersOf(rt.h, t.token, entries)).toEqual(["model", "model"]);
    // The entry embedded under `local` was not embedded again.
    expect(modelAsked(FILLER)).toBe(1);
    rt.fake.texts.length = 0;
  });

  test("tiered → local: the model's vectors kept, the table's remade by the model", async () => {
    await restartWith("");
    const t = await rt.h.createTenant();
    const entries = await filledAndHeld(t.tenant_id, t.token);
    expect(await tiersOf(rt.h, t.token, entries)).toEqual(["model", "static"]);

    await restartWith("local");
    const switched = await indexHealth(rt.h, t.tenant_id);
    expect(switched).toMatchObject({ vectors: 1, pending_vectors: 1 });
    expect(switched.pending_upgrades).toBeUndefined();
    // The table's vector is read until the opening's write (which drops it) commits, as after a reset.
    const dropped = await pollUntil(
      () => tiersOf(rt.h, t.token, entries),
      (tiers) => tiers[1] === "none",
    );
    expect(dropped).toEqual(["model", "none"]);

    rt.fake.setMode("serve");
    await healthUntil(rt.h, t.tenant_id, (i) => i.pending_vectors === 0);
    expect(await indexHealth(rt.h, t.tenant_id)).toMatchObject({ vectors: 2 });
    expect(await tiersOf(rt.h, t.token, entries)).toEqual(["model", "model"]);
    expect(modelAsked(FILLER)).toBe(1);
    rt.fake.texts.length = 0;
  });
});
