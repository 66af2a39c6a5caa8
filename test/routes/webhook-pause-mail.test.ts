/**
 * A paused `mail` source (docs/webhook-operations.md#pausing-a-source): a push notification is
 * verified and held without being expanded (the mail API is not read, the watch's mark stays);
 * the resume expands it then, from that mark, and writes what arrived once.
 */
import { expect, test } from "bun:test";
import { ManualClock } from "../../src/runtime/clock.ts";
import type { MessageMeta } from "../../src/sources/mail/api.ts";
import { fakeMailHarness, fakeMailSecrets } from "../helpers/fake-mail-harness.ts";

const EMAIL = "ops@example.com";
const clock = new ManualClock();
const mail = fakeMailHarness(clock);

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
  mail.fake.messages.set(id, meta);
  mail.fake.history.push({
    id: historyId,
    messagesAdded: [{ message: { id, threadId: meta.threadId, labelIds: ["INBOX"] } }],
  });
  mail.fake.historyId = historyId;
  return meta;
}

async function push(tenantId: string) {
  const token = await mail.fake.signPushToken();
  const raw = mail.fake.pushBody({ emailAddress: EMAIL, historyId: mail.fake.historyId }, `push-${++seq}`);
  return mail.h.json("POST", `/webhooks/mail/${tenantId}`, {
    raw,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
  });
}

async function subjects(tenantId: string): Promise<string[]> {
  const { body } = await mail.h.json("GET", "/memory/facts?limit=100", {
    token: await mail.h.mint(tenantId, ["tenant_admin"]),
  });
  return body.items.map((f: { content: string }) => f.content).sort();
}

test("a push to a paused mail source is held without reading the mail API; the resume expands it once", async () => {
  const { tenant_id: t } = await mail.h.createTenant();
  const secrets = fakeMailSecrets(mail.fake, EMAIL);
  for (const [base, value] of Object.entries(secrets)) mail.h.env[`${base}_${t}`] = value;
  await mail.h.runtime.startConnectorsFor(t);
  receive("Before the pause");
  expect((await push(t)).body.entries).toHaveLength(1);

  await mail.h.json("POST", `/admin/webhooks/sources/${t}/mail/pause`, { token: mail.h.adminToken });
  receive("While paused");
  const historyReads = mail.fake.hits.history;
  const held = await push(t);
  expect(held).toMatchObject({ status: 202, body: { held: 1 } });
  expect(mail.fake.hits.history).toBe(historyReads);
  expect((await subjects(t)).length).toBe(1);

  const resumed = await mail.h.json("POST", `/admin/webhooks/sources/${t}/mail/resume`, {
    token: mail.h.adminToken,
  });
  expect(resumed.body).toEqual({ source: "mail", status: "active", held: 0 });
  const facts = await subjects(t);
  expect(facts).toHaveLength(2);
  expect(facts.some((c) => c.includes("While paused"))).toBe(true);
  // The next push starts after what the release expanded: nothing written twice.
  receive("After the resume");
  expect((await push(t)).body.entries).toHaveLength(1);
  expect(await subjects(t)).toHaveLength(3);
});
