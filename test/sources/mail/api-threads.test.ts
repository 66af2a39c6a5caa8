/** The shared mail client's read calls used by the ingest command: labels, threads, the scope. */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { ManualClock } from "../../../src/runtime/clock.ts";
import { MAIL_READONLY_SCOPE, MailApiClient, MailApiError } from "../../../src/sources/mail/api.ts";
import { mailMessage } from "../../fakes/mail-messages.ts";
import { type FakeMailProvider, startFakeMailProvider } from "../../fakes/mail-provider.ts";

const EMAIL = "ops@example.com";
let fake: FakeMailProvider;
let clock: ManualClock;

function client(scope?: string) {
  return new MailApiClient({
    tokenUrl: fake.tokenUrl,
    apiBaseUrl: fake.apiBaseUrl,
    clientId: fake.clientId,
    clientSecret: fake.clientSecret,
    refreshToken: fake.refreshToken,
    clock,
    ...(scope ? { scope } : {}),
  });
}

beforeAll(async () => {
  clock = new ManualClock();
  fake = await startFakeMailProvider({ clock, threadPageSize: 2 });
});

afterAll(() => fake.stop());

beforeEach(() => {
  fake.faults.clear();
  fake.apiRequests.length = 0;
  fake.tokenScopes.length = 0;
  fake.labels = [
    { id: "INBOX", name: "INBOX", type: "system" },
    { id: "Label_1", name: "Billing", type: "user" },
  ];
  const at = Date.UTC(2026, 10, 20, 9);
  fake.mailbox = ["a", "b", "c", "d", "e"].map((id, i) =>
    mailMessage({
      id: `m-${id}`,
      threadId: `t-${id}`,
      at: at + i * 60_000,
      from: i % 2 ? "Ada <ada@example.com>" : "Bob <bob@example.com>",
      subject: `Subject ${id}`,
      labelIds: i < 4 ? ["INBOX", "Label_1"] : ["INBOX"],
    }),
  );
});

describe("MailApiClient read calls", () => {
  test("listLabels returns the mailbox's labels", async () => {
    expect(await client().listLabels(EMAIL)).toEqual(fake.labels);
  });

  test("listThreads follows nextPageToken and passes labelIds and q on every page", async () => {
    const threads = await client().listThreads(EMAIL, { q: "from:ada", labelIds: ["Label_1"] });
    expect(threads.map((t) => t.id)).toEqual(["t-d", "t-b"]);
    const all = await client().listThreads(EMAIL, { labelIds: ["Label_1"] });
    expect(all.map((t) => t.id)).toEqual(["t-d", "t-c", "t-b", "t-a"]);
    const listings = fake.apiRequests.filter((r) => r.path === "threads");
    expect(listings.map((r) => [r.query.get("pageToken"), r.query.get("q")])).toEqual([
      [null, "from:ada"],
      [null, null],
      ["2", null],
    ]);
    for (const r of listings) expect(r.query.getAll("labelIds")).toEqual(["Label_1"]);
  });

  test("listThreadsPage gives one page and its token; no match gives no threads", async () => {
    const page = await client().listThreadsPage(EMAIL, {}, undefined);
    expect(page).toEqual({
      threads: [expect.objectContaining({ id: "t-e" }), expect.objectContaining({ id: "t-d" })],
      nextPageToken: "2",
    });
    expect(await client().listThreadsPage(EMAIL, { q: "from:nobody" })).toEqual({ threads: [] });
  });

  test("getThread reads the whole thread with format=full; a missing thread is undefined", async () => {
    const thread = await client().getThread(EMAIL, "t-c");
    expect(thread?.messages?.map((m) => m.id)).toEqual(["m-c"]);
    expect(thread?.messages?.[0]?.payload?.body?.data).toBeString();
    expect(await client().getThread(EMAIL, "t-missing")).toBeUndefined();
    expect(fake.apiRequests.map((r) => r.query.get("format"))).toEqual(["full", "full"]);
  });

  test("other failures throw MailApiError with the status, and no token", async () => {
    fake.faults.next(/\/threads$/, 1, { kind: "status", status: 503, retryAfter: 5 });
    const error = await client()
      .listThreads(EMAIL, {})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailApiError);
    expect(error).toMatchObject({
      status: 503,
      retryAfterMs: 5000,
      message: "list threads: mail API answered 503",
    });
  });

  test("the scope is sent with the token exchange only when the client is given one", async () => {
    await client().listLabels(EMAIL);
    await client(MAIL_READONLY_SCOPE).listLabels(EMAIL);
    expect(fake.tokenScopes).toEqual([null, "https://www.googleapis.com/auth/gmail.readonly"]);
  });
});
