/**
 * The other doors into the conversation path (issue 32, item 5), black-box: a tenant that turns on
 * `BRIDGE_CONVERSATIONS` / `MAIL_CONVERSATIONS` gets each channel thread and each mail thread as a
 * session of turns, with the rules extractor's entries in it; a tenant that does not sees no change.
 */
import { describe, expect, test } from "bun:test";
import { doorSessionId } from "../../src/conversations/door.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import type { MessageMeta } from "../../src/sources/mail/api.ts";
import { fakeMailHarness, fakeMailSecrets } from "../helpers/fake-mail-harness.ts";
import { pollUntil } from "../helpers/poll.ts";
import { setSecrets } from "../helpers/webhooks.ts";

const EMAIL = "ops@example.com";
const clock = new ManualClock();
const mail = fakeMailHarness(clock);

const turnsOf = async (token: string, session: string) => {
  const res = await mail.h.json("GET", `/memory/conversations/${encodeURIComponent(session)}`, { token });
  expect(res.status).toBe(200);
  return res.body.turns as Array<{ position: number; entry: { content: string; origin: { kind: string } } }>;
};

const extracted = async (token: string, plural: string, session: string) => {
  const q = new URLSearchParams({ tag: "extracted", session_id: session });
  const res = await mail.h.json("GET", `/memory/${plural}?${q}`, { token });
  expect(res.status).toBe(200);
  return res.body.items as Array<{ content: string; origin: { kind: string; by: string } }>;
};

describe("the messaging bridge's door", () => {
  const THREAD = "1700000000.000100";
  const top = {
    type: "message",
    channel: "C024BE91L",
    user: "U1",
    text: "I prefer tea over coffee.",
    ts: THREAD,
  };
  const reply = {
    type: "message",
    channel: "C024BE91L",
    user: "U2",
    text: "We decided to ship on Monday.",
    ts: "1700000060.000200",
    thread_ts: THREAD,
  };
  const session = `chat:C024BE91L:${THREAD}`;

  test("is off by default: a message is a fact as before, and no session", async () => {
    const t = await mail.h.createTenant();
    const result = await mail.h.runtime.bridge.deliver(t.tenant_id, top);
    expect(result.entries).toHaveLength(1);
    expect(await turnsOf(t.token, session)).toEqual([]);
  });

  test("turned on, a channel thread is a session: its messages are turns, its statements extracted", async () => {
    const t = await mail.h.createTenant();
    setSecrets(mail.h, t.tenant_id, { BRIDGE_CONVERSATIONS: "true" });
    await mail.h.runtime.bridge.deliver(t.tenant_id, top);
    await mail.h.runtime.bridge.deliver(t.tenant_id, reply);
    // A redelivery is a duplicate: its turn is not appended again.
    expect((await mail.h.runtime.bridge.deliver(t.tenant_id, reply)).duplicates).toBe(1);

    const turns = await turnsOf(t.token, session);
    expect(turns.map((x) => [x.position, x.entry.content])).toEqual([
      [0, "U1: I prefer tea over coffee."],
      [1, "U2: We decided to ship on Monday."],
    ]);
    expect(turns[0]!.entry.origin.kind).toBe("bridge");
    const facts = await extracted(t.token, "facts", session);
    expect(facts.map((f) => f.content)).toEqual(["U1: I prefer tea over coffee."]);
    expect(facts[0]!.origin).toMatchObject({ kind: "extracted", by: "rules-v1" });
    expect((await extracted(t.token, "decisions", session)).map((d) => d.content)).toEqual([
      "U2: We decided to ship on Monday.",
    ]);
  });

  test("a message the session refuses (dated before its last turn) is stored, and its turn left out", async () => {
    const t = await mail.h.createTenant();
    setSecrets(mail.h, t.tenant_id, { BRIDGE_CONVERSATIONS: "true" });
    await mail.h.runtime.bridge.deliver(t.tenant_id, top);
    await mail.h.runtime.bridge.deliver(t.tenant_id, reply);
    const late = { ...reply, ts: "1700000030.000300", text: "An answer that arrived late." };
    const result = await mail.h.runtime.bridge.deliver(t.tenant_id, late);
    expect(result.entries).toHaveLength(1);
    expect((await turnsOf(t.token, session)).map((x) => x.position)).toEqual([0, 1]);
  });

  test("a thread id that is not a valid session id is named by its digest, the same each time", () => {
    const odd = doorSessionId("chat", "C 1/β", THREAD);
    expect(odd).toMatch(/^chat:sha256-[0-9a-f]{32}$/);
    expect(doorSessionId("chat", "C 1/β", THREAD)).toBe(odd);
    expect(doorSessionId("chat", "C 1/β", "1700000000.000200")).not.toBe(odd);
    expect(doorSessionId("mail", "18c2f0a1b2")).toBe("mail:18c2f0a1b2");
  });
});

describe("the mail watch's door", () => {
  let seq = 0;
  let historySeq = 5000;

  function receive(threadId: string, from: string, snippet: string): MessageMeta {
    const id = `door-m${++seq}`;
    const historyId = String(++historySeq);
    const meta: MessageMeta = {
      id,
      threadId,
      labelIds: ["INBOX"],
      snippet,
      historyId,
      internalDate: String(clock.now() - 60_000 + seq),
      payload: {
        headers: [
          { name: "From", value: from },
          { name: "Subject", value: "Numbers" },
        ],
      },
    };
    mail.fake.messages.set(id, meta);
    mail.fake.history.push({
      id: historyId,
      messagesAdded: [{ message: { id, threadId, labelIds: ["INBOX"] } }],
    });
    mail.fake.historyId = historyId;
    return meta;
  }

  async function mailTenant(conversations: boolean) {
    const t = await mail.h.createTenant();
    setSecrets(mail.h, t.tenant_id, {
      ...fakeMailSecrets(mail.fake, EMAIL),
      MAIL_CONVERSATIONS: conversations ? "true" : undefined,
    });
    await mail.h.runtime.startConnectorsFor(t.tenant_id);
    return t;
  }

  async function push(tenantId: string) {
    const raw = mail.fake.pushBody(
      { emailAddress: EMAIL, historyId: mail.fake.historyId },
      `door-push-${++seq}`,
    );
    const res = await mail.h.call("POST", `/webhooks/mail/${tenantId}`, {
      raw,
      headers: {
        authorization: `Bearer ${await mail.fake.signPushToken()}`,
        "content-type": "application/json",
      },
    });
    expect(res.status).toBe(200);
  }

  test("turned on, a mail thread is a session of its messages, said by their senders", async () => {
    const t = await mailTenant(true);
    receive("th-7", "Grace <grace@example.com>", "I&#39;ll send the numbers on Friday.");
    receive("th-7", "Ada <ada@example.com>", "Thanks, my manager is Alan.");
    await push(t.tenant_id);
    const turns = await pollUntil(
      () => turnsOf(t.token, "mail:th-7"),
      (x) => x.length === 2,
    );
    expect(turns.map((x) => x.entry.content)).toEqual([
      "Grace <grace@example.com>: I'll send the numbers on Friday.",
      "Ada <ada@example.com>: Thanks, my manager is Alan.",
    ]);
    expect(turns[0]!.entry.origin.kind).toBe("source");
    const decisions = await extracted(t.token, "decisions", "mail:th-7");
    expect(decisions.map((d) => d.content)).toEqual([
      "Grace <grace@example.com>: I'll send the numbers on Friday.",
    ]);
  });

  test("off by default: the mail is stored as before, and no session", async () => {
    const t = await mailTenant(false);
    receive("th-8", "Grace <grace@example.com>", "I'll call you on Tuesday.");
    await push(t.tenant_id);
    const facts = await mail.h.json("GET", "/memory/facts?tag=mail", { token: t.token });
    expect(facts.body.items.length).toBeGreaterThan(0);
    expect(await turnsOf(t.token, "mail:th-8")).toEqual([]);
  });
});
