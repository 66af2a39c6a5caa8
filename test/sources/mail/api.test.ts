import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { ManualClock } from "../../../src/runtime/clock.ts";
import {
  type HistoryRecord,
  MailApiClient,
  MailApiError,
  type MessageMeta,
} from "../../../src/sources/mail/api.ts";
import { mapMailHistory } from "../../../src/sources/mail/history.ts";
import { type FakeMailProvider, startFakeMailProvider } from "../../fakes/mail-provider.ts";

const EMAIL = "ops@example.com";
let fake: FakeMailProvider;
let clock: ManualClock;

function meta(id: string, threadId: string, from: string, subject: string, snippet: string): MessageMeta {
  return {
    id,
    threadId,
    labelIds: ["INBOX", "UNREAD"],
    snippet,
    historyId: "1100",
    internalDate: "1795000000000",
    payload: {
      headers: [
        { name: "From", value: from },
        { name: "Subject", value: subject },
        { name: "To", value: EMAIL },
      ],
    },
  };
}

function added(historyId: string, id: string, threadId: string): HistoryRecord {
  return {
    id: historyId,
    messages: [{ id, threadId }],
    messagesAdded: [{ message: { id, threadId, labelIds: ["INBOX"] } }],
  };
}

function client(overrides: Partial<ConstructorParameters<typeof MailApiClient>[0]> = {}) {
  return new MailApiClient({
    tokenUrl: fake.tokenUrl,
    apiBaseUrl: fake.apiBaseUrl,
    clientId: fake.clientId,
    clientSecret: fake.clientSecret,
    refreshToken: fake.refreshToken,
    clock,
    ...overrides,
  });
}

beforeAll(async () => {
  clock = new ManualClock();
  fake = await startFakeMailProvider({ clock, pageSize: 2 });
});

afterAll(() => fake.stop());

beforeEach(() => {
  fake.history = [
    added("1001", "m1", "t1"),
    added("1002", "m2", "t2"),
    added("1003", "m3", "t1"),
    { id: "1004", labelsAdded: [{ message: { id: "m2", threadId: "t2" }, labelIds: ["IMPORTANT"] }] },
    added("1005", "m4", "t3"),
  ];
  fake.historyId = "1005";
  fake.oldestHistoryId = 0;
  fake.messages = new Map([
    ["m1", meta("m1", "t1", "Ada <ada@example.com>", "Invoice 42", "Please find the invoice")],
    ["m2", meta("m2", "t2", "Bob <bob@example.com>", "Outage", "The API is down &amp; returns 500")],
    ["m3", meta("m3", "t1", "ops@example.com", "Re: Invoice 42", "Paid, thanks")],
    ["m4", meta("m4", "t3", "Cy <cy@example.com>", "Hello", "Hi there")],
  ]);
  fake.hits = { token: 0, history: 0, messages: 0, watch: 0, jwks: 0 };
});

describe("MailApiClient", () => {
  test("pages the history from the stored id and returns the new high-water mark", async () => {
    const api = client();
    const page = await api.listHistory(EMAIL, "1001");
    expect(page.history.map((r) => r.id)).toEqual(["1002", "1003", "1004", "1005"]);
    expect(page.historyId).toBe("1005");
    expect(fake.hits.history).toBe(2);
    expect(fake.hits.token).toBe(1);
    const nothing = await api.listHistory(EMAIL, "1005");
    expect(nothing).toEqual({ history: [], historyId: "1005" });
  });

  test("the access token is cached until shortly before it expires", async () => {
    const api = client();
    await api.listHistory(EMAIL, "1004");
    await api.getMessage(EMAIL, "m1");
    expect(fake.hits.token).toBe(1);
    clock.advance(3600_000 - 120_000);
    await api.getMessage(EMAIL, "m1");
    expect(fake.hits.token).toBe(1);
    clock.advance(90_000); // inside the renewal margin
    await api.getMessage(EMAIL, "m1");
    expect(fake.hits.token).toBe(2);
  });

  test("concurrent calls share one token exchange", async () => {
    const api = client();
    await Promise.all([
      api.getMessage(EMAIL, "m1"),
      api.getMessage(EMAIL, "m2"),
      api.listHistory(EMAIL, "1000"),
    ]);
    expect(fake.hits.token).toBe(1);
  });

  test("a revoked access token is renewed once", async () => {
    const api = client();
    await api.getMessage(EMAIL, "m1");
    fake.revokeAccessTokens();
    expect((await api.getMessage(EMAIL, "m1"))?.id).toBe("m1");
    expect(fake.hits.token).toBe(2);
  });

  test("getMessage returns metadata, or undefined once the message is gone", async () => {
    const api = client();
    expect(await api.getMessage(EMAIL, "m2")).toEqual(fake.messages.get("m2")!);
    expect(await api.getMessage(EMAIL, "nope")).toBeUndefined();
  });

  test("watch returns the history id and the expiry", async () => {
    const result = await client().watch(EMAIL, "projects/p/topics/mail");
    expect(result).toEqual({ historyId: "1005", expiration: clock.now() + 7 * 24 * 3600_000 });
    expect(fake.watches.at(-1)).toEqual({ email: EMAIL, topicName: "projects/p/topics/mail" });
  });

  test("errors carry the status, never a token or a secret", async () => {
    const bad = client({ refreshToken: "rt-wrong-secret-value" });
    const err = await bad.listHistory(EMAIL, "1").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MailApiError);
    expect((err as MailApiError).status).toBe(400);
    expect((err as Error).message).toContain("invalid_grant");
    for (const secret of ["rt-wrong-secret-value", fake.clientSecret, fake.refreshToken])
      expect((err as Error).message).not.toContain(secret);

    fake.oldestHistoryId = 1003;
    const gone = await client()
      .listHistory(EMAIL, "1001")
      .catch((e: unknown) => e);
    expect(gone).toMatchObject({ status: 404 });

    const failing = client({
      fetch: (async (input: string | URL | Request, init?: RequestInit) =>
        String(input).includes("/history")
          ? new Response("oops", { status: 503 })
          : fetch(input, init)) as typeof fetch,
    });
    const unavailable = await failing.listHistory(EMAIL, "1").catch((e: unknown) => e);
    expect(unavailable).toMatchObject({ status: 503 });
    expect((unavailable as Error).message).not.toMatch(/at-\d+/);

    const unreachable = await client({ tokenUrl: "http://127.0.0.1:9/token" })
      .listHistory(EMAIL, "1")
      .catch((e: unknown) => e);
    expect(unreachable).toMatchObject({ status: 0 });
  });

  test("a 429 or 503 carries the API's Retry-After, from the token endpoint too", async () => {
    fake.faults.next(/\/history$/, 1, { kind: "status", status: 429, retryAfter: 4 });
    const busy = await client()
      .listHistory(EMAIL, "1")
      .catch((e: unknown) => e);
    expect(busy).toMatchObject({ status: 429, retryAfterMs: 4000 });
    expect((busy as Error).message).toBe("list history: mail API answered 429");
    fake.faults.next("/token", 1, { kind: "status", status: 503, retryAfter: 9 });
    const down = await client()
      .watch(EMAIL, "projects/p/topics/mail")
      .catch((e: unknown) => e);
    expect(down).toMatchObject({ status: 503, retryAfterMs: 9000 });
    fake.faults.next(/\/history$/, 1, { kind: "status", status: 500, retryAfter: 4 });
    const failing = await client()
      .listHistory(EMAIL, "1")
      .catch((e: unknown) => e);
    expect(failing).toMatchObject({ status: 500, retryAfterMs: undefined });
  });

  test("end to end: history and metadata from the fake become drafts", async () => {
    const api = client();
    const page = await api.listHistory(EMAIL, "1000");
    const messages = new Map<string, MessageMeta>();
    for (const id of ["m1", "m2", "m3", "m4"]) {
      const m = await api.getMessage(EMAIL, id);
      if (m) messages.set(id, m);
    }
    const { drafts } = mapMailHistory({
      history: page.history,
      messages,
      seenThreads: new Set(),
      email: EMAIL,
      eventId: "push-1",
    });
    expect(drafts.map((d) => d.draft.category)).toEqual(["fact", "fact", "decision", "fact", "fact"]);
  });
});
