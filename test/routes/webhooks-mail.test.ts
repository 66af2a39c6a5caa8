import { beforeAll, describe, expect, test } from "bun:test";
import type { DeadLetter } from "../../src/models/dead-letter.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import type { HistoryRecord, MessageMeta } from "../../src/sources/mail/api.ts";
import { fakeMailHarness } from "../helpers/fake-mail-harness.ts";
import { expectProblem } from "../helpers/problem.ts";

const EMAIL = "ops@example.com";
const clock = new ManualClock();
const mail = fakeMailHarness(clock);

const CREDENTIALS = ["MAIL_CLIENT_ID", "MAIL_CLIENT_SECRET", "MAIL_REFRESH_TOKEN"] as const;

/** A tenant that receives mail pushes; `api` adds the mail API credentials, `watch` the topic. */
async function tenant(opts: { api?: boolean; watch?: boolean } = {}): Promise<string> {
  const { tenant_id: t } = await mail.h.createTenant();
  const set = (base: string, value: string) => {
    mail.h.env[`${base}_${t}`] = value;
  };
  set("MAIL_PUBSUB_AUDIENCE", mail.fake.audience);
  set("MAIL_WATCH_EMAIL", EMAIL);
  if (opts.api ?? true) setCredentials(t);
  if (opts.watch) set("MAIL_PUBSUB_TOPIC", "projects/acme/topics/mail");
  return t;
}

function setCredentials(t: string): void {
  mail.h.env[`MAIL_CLIENT_ID_${t}`] = mail.fake.clientId;
  mail.h.env[`MAIL_CLIENT_SECRET_${t}`] = mail.fake.clientSecret;
  mail.h.env[`MAIL_REFRESH_TOKEN_${t}`] = mail.fake.refreshToken;
}

let messageSeq = 0;
let historySeq = 1000;

/** Adds a message to the mailbox (a history record) and moves the mailbox's history id. */
function receive(threadId: string, subject: string, from = "Grace <grace@example.com>"): MessageMeta {
  const id = `m${++messageSeq}`;
  const historyId = String(++historySeq);
  const meta: MessageMeta = {
    id,
    threadId,
    labelIds: ["INBOX"],
    snippet: `About ${subject} &amp; more`,
    historyId,
    internalDate: String(clock.now() - 60_000),
    payload: {
      headers: [
        { name: "From", value: from },
        { name: "Subject", value: subject },
        { name: "To", value: EMAIL },
      ],
    },
  };
  mail.fake.messages.set(id, meta);
  const record: HistoryRecord = {
    id: historyId,
    messagesAdded: [{ message: { id, threadId, labelIds: ["INBOX"] } }],
  };
  mail.fake.history.push(record);
  mail.fake.historyId = historyId;
  return meta;
}

function label(message: MessageMeta, labels: string[]): void {
  const historyId = String(++historySeq);
  mail.fake.history.push({
    id: historyId,
    labelsAdded: [{ message: { id: message.id, threadId: message.threadId }, labelIds: labels }],
  });
  mail.fake.historyId = historyId;
}

let pushSeq = 0;
async function push(t: string, opts: { messageId?: string; token?: string; historyId?: string } = {}) {
  const messageId = opts.messageId ?? `push-${++pushSeq}`;
  const token = opts.token ?? (await mail.fake.signPushToken());
  const raw = mail.fake.pushBody(
    { emailAddress: EMAIL, historyId: opts.historyId ?? mail.fake.historyId },
    messageId,
  );
  const res = await mail.h.call("POST", `/webhooks/mail/${t}`, {
    raw,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
  });
  return { res, messageId };
}

async function pushJson(t: string, opts: Parameters<typeof push>[1] = {}) {
  const { res, messageId } = await push(t, opts);
  const text = await res.text();
  expect({ status: res.status, text }).toMatchObject({ status: 200 });
  return { body: JSON.parse(text), messageId };
}

/** What these tests read of an entry. */
interface EntryView {
  content: string;
  stage?: string;
  tags?: string[];
  source: { system: string; event_id: string };
  data: Record<string, unknown>;
}

async function entries(t: string, plural: string): Promise<EntryView[]> {
  const { status, body } = await mail.h.json("GET", `/memory/${plural}?limit=200`, {
    token: await mail.h.mint(t, ["tenant_admin"]),
  });
  expect(status).toBe(200);
  return body.items;
}

async function deadLetters(t: string): Promise<DeadLetter[]> {
  const { body } = await mail.h.json("GET", `/admin/webhooks/dead-letters/${t}`, {
    token: mail.h.adminToken,
  });
  return body.dead_letters;
}

describe("POST /webhooks/mail/{tenant}: expansion through the mail API", () => {
  /**
   * A watched tenant whose mark was already moved by one expansion (one fact), so that each test
   * starts from a stored mark of its own whatever ran before it (the mailbox is shared).
   */
  async function expandedTenant(): Promise<string> {
    const t = await tenant({ watch: true });
    await mail.h.runtime.startConnectorsFor(t);
    receive("t-0", "Already expanded");
    const { body } = await pushJson(t);
    expect(body.entries).toHaveLength(1);
    return t;
  }

  test("a notification is expanded from the watch's history id into facts and a decision", async () => {
    const t = await tenant({ watch: true });
    // The watch records the mailbox's history id: the expansion starts there.
    expect((await mail.h.runtime.startConnectorsFor(t)).mail?.history_id).toBe(mail.fake.historyId);
    const first = receive("t-1", "Quarterly numbers");
    receive("t-2", "Lunch?", "Alan <alan@example.com>");
    const reply = receive("t-1", "Re: Quarterly numbers", "Ada <ada@example.com>");
    label(first, ["IMPORTANT", "Finance"]);
    const { body, messageId } = await pushJson(t);
    expect(body).toMatchObject({ accepted: 1, duplicates: 0, dead_lettered: [], ignored: 0 });
    expect(body.entries).toHaveLength(4);

    const facts = await entries(t, "facts");
    const decisions = await entries(t, "decisions");
    expect(facts).toHaveLength(3);
    expect(decisions).toHaveLength(1);
    expect(decisions[0]).toMatchObject({ stage: "thread_resolution" });
    expect(decisions[0]!.content).toContain("Ada <ada@example.com> answered");
    expect(decisions[0]!.data.message_id).toBe(reply.id);
    const newMail = facts.find((f) => f.data.message_id === first.id && !f.data.labels_added)!;
    expect(newMail.content).toContain('"Quarterly numbers"');
    expect(newMail.content).toContain("About Quarterly numbers & more");
    const labelled = facts.find((f) => f.data.labels_added)!;
    expect(labelled.tags).toEqual(expect.arrayContaining(["IMPORTANT", "Finance"]));
    for (const e of [...facts, ...decisions]) expect(e.source.system).toBe("mail");
    for (const e of [...facts, ...decisions]) expect(e.source.event_id).toBe(messageId);

    // The new high-water mark was committed with the entries.
    const mark = await mail.h.runtime.services
      .tenant(t)
      .ask({ type: "connector.state.get", key: "mail:history" });
    expect(mark).toBe(mail.fake.historyId);
  });

  test("expansion pages from the stored mark, not from the notification's history id", async () => {
    const t = await expandedTenant();
    const m = receive("t-3", "Contract draft");
    // A notification claiming an older history id still yields only what is new since the mark.
    const { body } = await pushJson(t, { historyId: "1000" });
    expect(body.entries).toHaveLength(1);
    const facts = await entries(t, "facts");
    expect(facts.filter((f) => f.data.message_id === m.id)).toHaveLength(1);
    expect(facts).toHaveLength(2);
  });

  test("two notifications at once never expand the same range twice", async () => {
    const t = await expandedTenant();
    receive("t-4", "One");
    receive("t-5", "Two");
    const [a, b] = await Promise.all([pushJson(t), pushJson(t)]);
    expect(a.body.entries.length + b.body.entries.length).toBe(2);
    expect(await entries(t, "facts")).toHaveLength(3);
  });

  test("a redelivered notification writes nothing and loses nothing", async () => {
    const t = await expandedTenant();
    receive("t-6", "Three");
    const first = await pushJson(t);
    expect(first.body.entries).toHaveLength(1);
    const later = receive("t-7", "Four");
    const again = await pushJson(t, { messageId: first.messageId });
    expect(again.body).toMatchObject({ accepted: 0, duplicates: 1, entries: [] });
    // The history that arrived before the redelivery is expanded by the next notification.
    const next = await pushJson(t);
    expect(next.body.entries).toHaveLength(1);
    expect((await entries(t, "facts")).filter((f) => f.data.message_id === later.id)).toHaveLength(1);
  });

  test("health shows the mail connector with the history id", async () => {
    const t = await expandedTenant();
    const { body } = await mail.h.json("GET", `/tenants/${t}/healthz`, { token: mail.h.adminToken });
    expect(body.connectors.mail).toMatchObject({
      state: "active",
      history_id: mail.fake.historyId,
      last_error: null,
    });
    expect(typeof body.connectors.mail.last_expanded_at).toBe("string");
  });
});

describe("mail expansion without a stored history id", () => {
  test("the first notification's id becomes the mark and nothing is written; the next one expands", async () => {
    const t = await tenant();
    receive("u-1", "Before the mark");
    const first = await pushJson(t);
    expect(first.body).toMatchObject({ accepted: 1, entries: [] });
    const m = receive("u-2", "After the mark");
    const second = await pushJson(t);
    expect(second.body.entries).toHaveLength(1);
    const facts = await entries(t, "facts");
    expect(facts.map((f) => f.data.message_id)).toEqual([m.id]);
    // No topic: this runtime expands pushes but manages no watch, and health says so.
    const { body } = await mail.h.json("GET", `/tenants/${t}/healthz`, { token: mail.h.adminToken });
    expect(body.connectors.mail).toMatchObject({ state: "push_only", history_id: mail.fake.historyId });
  });
});

describe("mail expansion failures are dead letters, never a 500", () => {
  test("without mail API credentials: mail_api_not_configured, and a replay succeeds once they are set", async () => {
    const t = await tenant({ watch: true });
    await mail.h.runtime.startConnectorsFor(t);
    // The credentials are withdrawn (say, while being rotated) and mail arrives meanwhile.
    for (const base of CREDENTIALS) delete mail.h.env[`${base}_${t}`];
    const m = receive("v-1", "Sent during the rotation");
    const { body, messageId } = await pushJson(t);
    expect(body).toMatchObject({ accepted: 0, entries: [], dead_lettered: [messageId], ignored: 0 });
    const [letter] = await deadLetters(t);
    expect(letter).toMatchObject({
      event_id: messageId,
      source: "mail",
      status: "dead",
      last_error: "mail_api_not_configured",
    });

    const still = await mail.h.json("POST", `/admin/webhooks/replay/${t}/${messageId}`, {
      token: mail.h.adminToken,
    });
    expect(still.body).toMatchObject({ status: "dead", last_error: "mail_api_not_configured" });

    setCredentials(t);
    const replay = await mail.h.json("POST", `/admin/webhooks/replay/${t}/${messageId}`, {
      token: mail.h.adminToken,
    });
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ event_id: messageId, status: "replayed" });
    expect(replay.body.entries).toHaveLength(1);
    const facts = await entries(t, "facts");
    expect(facts.map((f) => f.data.message_id)).toEqual([m.id]);
    expect((await deadLetters(t))[0]).toMatchObject({ status: "replayed", attempts: 3 });
  });

  test("a mail API error is a dead letter naming the status", async () => {
    const t = await tenant({ watch: true });
    await mail.h.runtime.startConnectorsFor(t);
    mail.h.env[`MAIL_REFRESH_TOKEN_${t}`] = "revoked";
    receive("w-1", "Unreadable for now");
    const { body, messageId } = await pushJson(t);
    expect(body.dead_lettered).toEqual([messageId]);
    const [letter] = await deadLetters(t);
    expect(letter!.last_error).toStartWith("mail_api_error: 400");
    // The mark did not move: once the API answers again, the replay expands the same history.
    setCredentials(t);
    const replay = await mail.h.json("POST", `/admin/webhooks/replay/${t}/${messageId}`, {
      token: mail.h.adminToken,
    });
    expect(replay.body).toMatchObject({ status: "replayed" });
    expect(replay.body.entries).toHaveLength(1);
  });

  test("a mark older than the history the API keeps: mail_history_expired, resumed from the notification", async () => {
    const t = await tenant({ watch: true });
    await mail.h.runtime.startConnectorsFor(t);
    receive("x-1", "Lost in the gap");
    mail.fake.oldestHistoryId = Number(mail.fake.historyId);
    try {
      const { body, messageId } = await pushJson(t);
      expect(body.dead_lettered).toEqual([messageId]);
      expect((await deadLetters(t))[0]!.last_error).toStartWith("mail_history_expired");
      const m = receive("x-2", "After the gap");
      const next = await pushJson(t);
      expect(next.body.entries).toHaveLength(1);
      expect((await entries(t, "facts")).map((f) => f.data.message_id)).toEqual([m.id]);
    } finally {
      mail.fake.oldestHistoryId = 0;
    }
  });
});

describe("mail push tokens", () => {
  let t: string;
  beforeAll(async () => {
    t = await tenant();
  });

  test("a token from another key → 401", async () => {
    const { res } = await push(t, { token: await mail.fake.signPushToken({ key: "other" }) });
    await expectProblem(res, 401, "unauthorized");
    const forged = await push(t, { token: await mail.fake.signPushToken({ key: "other", kid: "key-1" }) });
    await expectProblem(forged.res, 401, "unauthorized");
  });

  test("a token for another audience → 401", async () => {
    const { res } = await push(t, {
      token: await mail.fake.signPushToken({ claims: { aud: "https://elsewhere.example.com" } }),
    });
    await expectProblem(res, 401, "unauthorized");
  });

  test("an expired token → 401", async () => {
    const s = Math.floor(clock.now() / 1000);
    const token = await mail.fake.signPushToken({
      issuedAtMs: clock.now() - 1800_000,
      claims: { exp: s - 120 },
    });
    const { res } = await push(t, { token });
    await expectProblem(res, 401, "unauthorized");
  });

  test("a token from another issuer → 401", async () => {
    const { res } = await push(t, {
      token: await mail.fake.signPushToken({ claims: { iss: "https://issuer.example.com" } }),
    });
    await expectProblem(res, 401, "unauthorized");
  });

  test("nothing was written or dead-lettered by the refused deliveries", async () => {
    expect(await deadLetters(t)).toEqual([]);
    expect(await entries(t, "facts")).toEqual([]);
  });
});
