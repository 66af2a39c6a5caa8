/**
 * The sentence model's upgrade (`tiered`) yields to requests, black-box over the HTTP API: while a
 * request is in flight, or one was answered in the last 50 ms, the model is not given the next
 * batch (health says `upgrades: "yielding"`); once the service is quiet it is. The clock is the
 * test's own (frozen unless advanced: every request keeps the service "just busy"), the model a
 * fake that records what reaches it.
 */
import { afterEach, expect, test } from "bun:test";
import { UPGRADE_PACING } from "../../src/embedding/upgrade-pacing.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { healthUntil, indexHealth } from "../helpers/embedding.ts";
import { GatedModel, gatedLocalModel } from "../helpers/gated-model.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A write whose body has not arrived yet: in flight until `finish` sends it. */
function heldWrite(h: Harness, token: string, content: string) {
  let send!: (body: string) => void;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      send = (text) => {
        controller.enqueue(new TextEncoder().encode(text));
        controller.close();
      };
    },
  });
  const answer = h.app.handle(
    new Request("http://localhost/memory/facts", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit),
  );
  return { answer, finish: () => send(JSON.stringify({ content })) };
}

test("the model's upgrade waits while requests are in flight and runs once they stop", async () => {
  const clock = new ManualClock();
  const model = new GatedModel();
  h = await startHarness({
    clock,
    env: { MEMORY_RUNTIME_EMBEDDER: "tiered" },
    localModel: gatedLocalModel(model),
  });
  const { token, tenant_id } = await h.createTenant();
  const write = await h.json("POST", "/memory/facts", {
    token,
    body: { content: "The canteen opens at noon" },
  });
  expect(write.status).toBe(201);

  // Just answered: the upgrade is held, the entry searchable by its static vector meanwhile.
  const held = await healthUntil(h, tenant_id, (index) => index.embedder?.upgrades === "yielding");
  expect(held.pending_upgrades).toBe(1);
  expect(held.pending_vectors).toBe(0);

  // A request in flight however long (under the starvation guard's delay): still held.
  const inFlight = heldWrite(h, token, "Olga adopted a kitten in May");
  clock.advance(UPGRADE_PACING.starvedAfterMs / 2);
  const stillHeld = await indexHealth(h, tenant_id);
  expect(stillHeld.embedder?.upgrades).toBe("yielding");
  expect(stillHeld.embedder?.in_flight).toBe(0);
  expect(model.texts).toEqual([]);

  // The requests stop: after the quiet window the model is given the batch.
  inFlight.finish();
  expect((await inFlight.answer).status).toBe(201);
  clock.advance(UPGRADE_PACING.quietMs);
  await model.holding(1);
  expect(model.texts).toContain("The canteen opens at noon");
  model.open();
  const after = await healthUntil(h, tenant_id, (index) => index.pending_upgrades === 0);
  expect(after.vectors).toBe(2);
});
