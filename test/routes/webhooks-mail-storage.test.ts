/**
 * A mail notification whose expansion the tenant cannot commit (its vault at the ceiling: 507) is
 * not lost: the connector moved its history mark in memory before the commit, and the refused
 * commit puts it back, so the platform's redelivery expands the same history once space exists.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "../../src/runtime/clock.ts";
import { type FakeMailProvider, startFakeMailProvider } from "../fakes/mail-provider.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

const EMAIL = "ops@example.com";
/** ~8 KiB a fact: a 1 MiB vault is full after ~100 of them. */
const FILLER = "storage ".repeat(1000);
const MAX_WRITES = 400;
const clock = new ManualClock();
const own = mkdtempSync(join(tmpdir(), "mrt-mail-full-"));
let fake: FakeMailProvider;
let h: Harness;

beforeAll(async () => {
  fake = await startFakeMailProvider({ now: () => clock.now() });
  h = await startHarness({
    clock,
    dataDir: join(own, "data"),
    env: {
      MEMORY_RUNTIME_VAULT_MAX_MB: "1",
      MAIL_OAUTH_TOKEN_URL: fake.tokenUrl,
      MAIL_API_BASE_URL: fake.apiBaseUrl,
      MAIL_PUBSUB_JWKS_URL: fake.jwksUrl,
    },
  });
});
afterAll(async () => {
  await h.close();
  fake.stop();
  rmSync(own, { recursive: true, force: true });
});

async function mailTenant(): Promise<{ tenantId: string; token: string }> {
  const created = await h.createTenant();
  const values: Record<string, string> = {
    MAIL_PUBSUB_AUDIENCE: fake.audience,
    MAIL_WATCH_EMAIL: EMAIL,
    MAIL_CLIENT_ID: fake.clientId,
    MAIL_CLIENT_SECRET: fake.clientSecret,
    MAIL_REFRESH_TOKEN: fake.refreshToken,
    MAIL_PUBSUB_TOPIC: "projects/acme/topics/mail",
  };
  for (const [k, v] of Object.entries(values)) h.env[`${k}_${created.tenant_id}`] = v;
  await h.runtime.startConnectorsFor(created.tenant_id);
  return { tenantId: created.tenant_id, token: created.token };
}

let seq = 0;
function receive(subject: string): string {
  const id = `full-m${++seq}`;
  const historyId = String(5000 + seq);
  const threadId = `full-t${seq}`;
  fake.messages.set(id, {
    id,
    threadId,
    labelIds: ["INBOX"],
    snippet: subject,
    historyId,
    internalDate: String(clock.now()),
    payload: {
      headers: [
        { name: "From", value: "Grace <grace@example.com>" },
        { name: "Subject", value: subject },
      ],
    },
  });
  fake.history.push({ id: historyId, messagesAdded: [{ message: { id, threadId, labelIds: ["INBOX"] } }] });
  fake.historyId = historyId;
  return id;
}

async function push(tenantId: string, messageId: string): Promise<Response> {
  const raw = fake.pushBody({ emailAddress: EMAIL, historyId: fake.historyId }, messageId);
  return h.call("POST", `/webhooks/mail/${tenantId}`, {
    raw,
    headers: { authorization: `Bearer ${await fake.signPushToken()}`, "content-type": "application/json" },
  });
}

test("a notification refused with 507 is expanded again on redelivery once space exists", async () => {
  const t = await mailTenant();
  const filler: string[] = [];
  let refused = false;
  for (let n = 0; n < MAX_WRITES && !refused; n++) {
    const res = await h.json("POST", "/memory/facts", {
      token: t.token,
      body: { content: `fill ${n} ${FILLER}` },
    });
    if (res.status === 201) filler.push(res.body.id);
    else refused = true;
  }
  expect(refused).toBe(true);

  const messageId = receive("Invoice overdue");
  await expectProblem(await push(t.tenantId, "push-full-1"), 507, "insufficient_storage");

  const erase = await h.json("POST", `/admin/tenants/${t.tenantId}/erase`, {
    token: h.adminToken,
    body: { ids: filler },
  });
  expect(erase.status).toBe(200);

  const again = await push(t.tenantId, "push-full-1");
  expect(again.status).toBe(200);
  const summary = (await again.json()) as { accepted: number; duplicates: number; entries: string[] };
  expect(summary).toMatchObject({ accepted: 1, duplicates: 0 });
  expect(summary.entries).toHaveLength(1);
  const facts = await h.json("GET", "/memory/facts?limit=10", { token: t.token });
  expect(facts.body.items.map((f: { data?: { message_id?: string } }) => f.data?.message_id)).toEqual([
    messageId,
  ]);
});
