/**
 * Issue 30, acceptance (c): during a burst of 10,000 webhook events through the signed payments
 * route, under the default embedder, a search finds an event's entry by a question that shares no
 * word with it, while the burst is still being delivered and the model's upgrades wait (the fake
 * model holds them all): every acknowledged event already has its vector. In process, a bounded
 * loop of 16 concurrent senders.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type FakeEmbeddings, startFakeEmbeddings } from "../fakes/embeddings-service.ts";
import { paymentsSender, stripeEvent } from "../fakes/senders/payments.ts";
import { indexHealth } from "../helpers/embedding.ts";
import type { Harness } from "../helpers/harness.ts";
import { foundByMeaning, MODEL_DIMS, PET, tieredHarness } from "../helpers/tiered.ts";
import { setSecrets } from "../helpers/webhooks.ts";

const EVENTS = 10_000;
/** The event whose entry is searched for, in the middle of the burst. */
const PET_AT = 4_000;
const SENDERS = 16;
const DESCRIPTIONS = [
  "Monthly plan renewal",
  "Office chairs for the Lyon warehouse",
  "Annual support contract, second instalment",
  "Conference tickets for the sales team",
];

let fake: FakeEmbeddings;
let h: Harness;

beforeAll(async () => {
  fake = startFakeEmbeddings(MODEL_DIMS);
  fake.setMode("hold");
  h = await tieredHarness(fake, { env: { MEMORY_RUNTIME_RATE_LIMITS: "webhook=off" } });
});
afterAll(async () => {
  await h.close();
  fake.stop();
});

const payment = (i: number) =>
  stripeEvent("payment_intent.succeeded", {
    id: `pi_burst_${i}`,
    amount_received: 1000 + i,
    currency: "eur",
    customer: `cus_burst_${i}`,
    description: i === PET_AT ? PET : DESCRIPTIONS[i % DESCRIPTIONS.length],
  });

test("a search during a 10k-event webhook burst finds its match by meaning alone", async () => {
  const t = await h.createTenant();
  setSecrets(h, t.tenant_id, paymentsSender.secrets);
  const url = `/webhooks/payments/${t.tenant_id}`;
  let next = 0;
  let answered = 0;
  let petSeen: (id: string) => void = () => undefined;
  const pet = new Promise<string>((resolve) => (petSeen = resolve));
  const sender = async () => {
    while (next < EVENTS) {
      const i = next++;
      const signed = await paymentsSender.sign(payment(i), { now: Date.now(), url });
      const res = await h.json("POST", url, { raw: signed.body as string, headers: signed.headers });
      expect(res.status).toBe(200);
      answered++;
      if (i === PET_AT) petSeen(res.body.entries[0]);
    }
  };
  const burst = Promise.all(Array.from({ length: SENDERS }, sender));

  const id = await pet;
  await foundByMeaning(h, t.token, id);
  const during = await indexHealth(h, t.tenant_id);
  // Still delivering when it was found, and no upgrade done: the table's vector found it.
  expect(answered).toBeLessThan(EVENTS);
  expect(during.pending_vectors).toBe(0);
  expect(during.pending_upgrades).toBe(during.vectors);
  expect(during.vectors).toBeGreaterThan(PET_AT / 2);

  await burst;
  const after = await indexHealth(h, t.tenant_id);
  expect(after).toMatchObject({ vectors: EVENTS, pending_vectors: 0, pending_upgrades: EVENTS });
}, 180_000);
