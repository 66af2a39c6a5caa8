/**
 * A paused `mail` source (docs/webhook-operations.md#pausing-a-source): a push notification is
 * verified and held without being expanded (the mail API is not read, the watch's mark stays);
 * the resume expands it then, from that mark, and writes what arrived once.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ManualClock } from "../../src/runtime/clock.ts";
import type { MessageMeta } from "../../src/sources/mail/api.ts";
import { type FakeMailProvider, startFakeMailProvider } from "../fakes/mail-provider.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";

const EMAIL = "ops@example.com";
const clock = new ManualClock();
let fake: FakeMailProvider;
let h: Harness;

beforeAll(async () => {
  fake = await startFakeMailProvider({ now: () => clock.now(), pageSize: 2 });
  h = await startHarness({
    clock,
    env: {
      MAIL_OAUTH_TOKEN_URL: fake.tokenUrl,
      MAIL_API_BASE_URL: fake.apiBaseUrl,
      MAIL_PUBSUB_JWKS_URL: fake.jwksUrl,
    },
  });
});
afterAll(async () => {
  await h.close();
  fake.stop();
});

let seq = 0;
function receive(subject: string): MessageMeta {
  const id = `pm${++seq}`;
  const historyId = String(5000 + seq);
  const meta: MessageMeta = {
    id,
    threadId: `pt${seq}`,
    labelIds: ["INBOX"],
    snippet: `About ${subject}`,
    historyId,
    internalDate: String(clock.now() - 60_000),
    payload: {
      headers: [
        { name: "From", value: "Grace <grace@example.com>" },
        { name: "Subject", value: subject },
        { name: "To", value: EMAIL },
      ],
    },
  };
  fake.messages.set(id, meta);
  fake.history.push({
    id: historyId,
    messagesAdded: [{ message: { id, threadId: meta.threadId, labelIds: ["INBOX"] } }],
  });
  fake.historyId = historyId;
  return meta;
}

async function push(tenantId: string) {
  const token = await fake.signPushToken();
  const raw = fake.pushBody({ emailAddress: EMAIL, historyId: fake.historyId }, `push-${++seq}`);
  return h.json("POST", `/webhooks/mail/${tenantId}`, {
    raw,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
  });
}

async function subjects(tenantId: string): Promise<string[]> {
  const { body } = await h.json("GET", "/memory/facts?limit=100", {
    token: await h.mint(tenantId, ["tenant_admin"]),
  });
  return body.items.map((f: { content: string }) => f.content).sort();
}

test("a push to a paused mail source is held without reading the mail API; the resume expands it once", async () => {
  const { tenant_id: t } = await h.createTenant();
  const secrets = {
    MAIL_PUBSUB_AUDIENCE: fake.audience,
    MAIL_WATCH_EMAIL: EMAIL,
    MAIL_CLIENT_ID: fake.clientId,
    MAIL_CLIENT_SECRET: fake.clientSecret,
    MAIL_REFRESH_TOKEN: fake.refreshToken,
    MAIL_PUBSUB_TOPIC: "projects/acme/topics/mail",
  };
  for (const [base, value] of Object.entries(secrets)) h.env[`${base}_${t}`] = value;
  await h.runtime.startConnectorsFor(t);
  receive("Before the pause");
  expect((await push(t)).body.entries).toHaveLength(1);

  await h.json("POST", `/admin/webhooks/sources/${t}/mail/pause`, { token: h.adminToken });
  receive("While paused");
  const historyReads = fake.hits.history;
  const held = await push(t);
  expect(held).toMatchObject({ status: 202, body: { held: 1 } });
  expect(fake.hits.history).toBe(historyReads);
  expect((await subjects(t)).length).toBe(1);

  const resumed = await h.json("POST", `/admin/webhooks/sources/${t}/mail/resume`, { token: h.adminToken });
  expect(resumed.body).toEqual({ source: "mail", status: "active", held: 0 });
  const facts = await subjects(t);
  expect(facts).toHaveLength(2);
  expect(facts.some((c) => c.includes("While paused"))).toBe(true);
  // The next push starts after what the release expanded: nothing written twice.
  receive("After the resume");
  expect((await push(t)).body.entries).toHaveLength(1);
  expect(await subjects(t)).toHaveLength(3);
});
