/**
 * The ingest run end to end in process: the CLI entry against the local mail fake, on a manual
 * clock (2026-11-21 10:00 UTC), writing into a fresh folder per test.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runMailIngest } from "../../src/mail-ingest/cli.ts";
import { ingestMail, type MailReader } from "../../src/mail-ingest/ingest.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { MAIL_READONLY_SCOPE } from "../../src/sources/mail/api.ts";
import { attachmentPart, mailMessage, multipart, textPart } from "../fakes/mail-messages.ts";
import { type FakeMailProvider, startFakeMailProvider } from "../fakes/mail-provider.ts";
import { pollUntil } from "../helpers/poll.ts";

const START = Date.UTC(2026, 10, 21, 10, 0);
const at = (day: number, h: number, m = 0) => Date.UTC(2026, 10, day, h, m);
const ACME = "Label_7";

let fake: FakeMailProvider;
let clock: ManualClock;
let out: string;
const root = mkdtempSync(join(tmpdir(), "mail-ingest-"));

/** Seven threads, five under the label in the last three days, with the awkward cases among them. */
function seed(): void {
  fake.labels.push({ id: ACME, name: "Clients/ACME", type: "user" });
  const acme = [ACME, "INBOX"];
  fake.mailbox = [
    // t1 spans two days; its subject is RFC 2047 encoded.
    mailMessage({
      id: "m1",
      threadId: "t1",
      at: at(20, 9),
      from: "Ada Lovelace <ada@acme.example>",
      subject: "=?UTF-8?B?w4ljaMOpYW5jZSA0MiDigJQgZmFjdHVyZQ==?=",
      labelIds: acme,
      payload: textPart("Bonjour,\nla facture 42 est due."),
    }),
    mailMessage({
      id: "m2",
      threadId: "t1",
      at: at(21, 8),
      from: "Ops <ops@example.com>",
      to: "Ada Lovelace <ada@acme.example>",
      subject: "Re: =?UTF-8?B?w4ljaMOpYW5jZSA0MiDigJQgZmFjdHVyZQ==?=",
      labelIds: ["SENT"],
      payload: textPart("Payée hier."),
    }),
    // t2: HTML only.
    mailMessage({
      id: "m3",
      threadId: "t2",
      at: at(20, 14),
      from: "Newsletter <news@acme.example>",
      subject: "November news",
      labelIds: acme,
      payload: textPart(
        "<html><head><style>p{}</style></head><body><h1>News</h1><p>Sales&nbsp;up <b>12%</b>.<br>Details <a href='https://acme.example/n'>here</a>.</p></body></html>",
        "text/html",
      ),
    }),
    // t3: attachments.
    mailMessage({
      id: "m4",
      threadId: "t3",
      at: at(19, 16),
      from: "Bob <bob@acme.example>",
      subject: "Contract",
      labelIds: acme,
      payload: multipart("mixed", [
        textPart("Signed copy attached."),
        attachmentPart("contract.pdf", "application/pdf", 48_213, "att-contract"),
        attachmentPart("scan.png", "image/png", 900, "att-scan"),
      ]),
    }),
    // t4: a message and a draft reply (drafts are not mail that happened).
    mailMessage({
      id: "m5",
      threadId: "t4",
      at: at(21, 9, 30),
      from: "Cy <cy@acme.example>",
      subject: "Quick question",
      labelIds: acme,
    }),
    mailMessage({
      id: "m7",
      threadId: "t4",
      at: at(21, 9, 45),
      from: "Ops <ops@example.com>",
      subject: "Re: Quick question",
      labelIds: ["DRAFT"],
    }),
    // t8: in the range, labelled, but the message is in the trash.
    mailMessage({
      id: "m8",
      threadId: "t8",
      at: at(20, 11),
      from: "Spam <x@spam.example>",
      subject: "Win",
      labelIds: [ACME, "TRASH"],
    }),
    // t5: labelled but older than the range; t6: in the range but not labelled.
    mailMessage({
      id: "m6",
      threadId: "t5",
      at: at(10, 12),
      from: "Old <old@acme.example>",
      subject: "Old",
      labelIds: acme,
    }),
    mailMessage({
      id: "m9",
      threadId: "t6",
      at: at(20, 10),
      from: "Dee <dee@other.example>",
      subject: "Unrelated",
      labelIds: ["INBOX"],
    }),
    // t7: under the label, the same day as m1: more threads than one page (page size 2).
    mailMessage({
      id: "m10",
      threadId: "t7",
      at: at(20, 8),
      from: "Eve <eve@acme.example>",
      subject: "Early bird",
      labelIds: acme,
    }),
  ];
}

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    MAIL_CLIENT_ID: fake.clientId,
    MAIL_CLIENT_SECRET: fake.clientSecret,
    MAIL_REFRESH_TOKEN: fake.refreshToken,
    MAIL_OAUTH_TOKEN_URL: fake.tokenUrl,
    MAIL_API_BASE_URL: fake.apiBaseUrl,
    ...extra,
  };
}

async function ingest(args: string[], extraEnv: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const code = await runMailIngest([...args, "--out", out], env(extraEnv), {
    out: (t) => {
      stdout += t;
    },
    err: (t) => {
      stderr += t;
    },
    clock,
  });
  return { code, stdout, stderr };
}

const read = (...parts: string[]) => readFileSync(join(out, ...parts), "utf8");
const files = (folder: string) => readdirSync(join(out, folder)).sort();
const threadListings = () => fake.apiRequests.filter((r) => r.path === "threads");

beforeAll(async () => {
  clock = new ManualClock(START);
  fake = await startFakeMailProvider({ clock, threadPageSize: 2 });
});

afterAll(() => {
  fake.stop();
  rmSync(root, { recursive: true, force: true });
});

beforeEach(() => {
  fake.faults.clear();
  fake.labels = fake.labels.filter((l) => l.type === "system");
  fake.apiRequests.length = 0;
  fake.tokenScopes.length = 0;
  seed();
  out = mkdtempSync(join(root, "out-"));
});

describe("mail ingest against the mail fake", () => {
  test("pages through every thread under the label: more threads than one page", async () => {
    const result = await ingest(["--label", "clients/acme", "--days", "3"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    // Five labelled threads in the window, two a page: three pages, following nextPageToken.
    expect(threadListings().map((r) => r.query.get("pageToken"))).toEqual([null, "2", "4"]);
    for (const r of threadListings()) expect(r.query.getAll("labelIds")).toEqual([ACME]);
    expect(files("clients-acme")).toEqual(["2026-11-19.md", "2026-11-20.md", "2026-11-21.md"]);
    const all = files("clients-acme")
      .map((f) => read("clients-acme", f))
      .join("\n");
    for (const body of [
      "la facture 42",
      "Payée hier.",
      "Sales up",
      "Signed copy",
      "Body of m5",
      "Body of m10",
    ])
      expect(all).toContain(body);
    expect(result.stdout).toContain(
      "mail-ingest: 5 threads, 6 messages over 3 days (2026-11-19 to 2026-11-21)",
    );
  });

  test("a thread spanning two days: each message in the file of its own day", async () => {
    expect((await ingest(["--label", "Clients/ACME", "--days", "3"])).code).toBe(0);
    const day20 = read("clients-acme", "2026-11-20.md");
    const day21 = read("clients-acme", "2026-11-21.md");
    expect(day20).toContain("la facture 42 est due.");
    expect(day20).not.toContain("Payée hier.");
    expect(day21).toContain("Payée hier.");
    expect(day21).not.toContain("la facture 42 est due.");
    expect(day20).toContain("This thread also has messages on [2026-11-21](2026-11-21.md).");
    expect(day21).toContain("This thread also has messages on [2026-11-20](2026-11-20.md).");
    // The 20th: threads by their first message of the day (t7 08:00, t1 09:00, t2 14:00).
    expect([...day20.matchAll(/^## (.*)$/gm)].map((m) => m[1])).toEqual([
      "Early bird",
      "Échéance 42 — facture",
      "November news",
    ]);
  });

  test("a non-ASCII (RFC 2047) subject is written decoded (the label given by id, filed by its name)", async () => {
    expect((await ingest(["--label", ACME, "--days", "3"])).code).toBe(0);
    const day21 = read("clients-acme", "2026-11-21.md");
    expect(day21).toContain("## Re: Échéance 42 — facture");
    expect(day21).toContain("- **Subject:** Re: Échéance 42 — facture");
    expect(day21).toContain("- **To:** Ada Lovelace \\<ada@acme.example\\>");
    expect(day21).not.toContain("=?UTF-8?");
  });

  test("an HTML-only body is turned into readable text", async () => {
    expect((await ingest(["--label", "Clients/ACME", "--days", "3"])).code).toBe(0);
    expect(read("clients-acme", "2026-11-20.md")).toContain(
      "```text\nNews\n\nSales up 12%.\nDetails here (https://acme.example/n).\n```",
    );
  });

  test("attachments are listed by name, type and size, and never fetched", async () => {
    expect((await ingest(["--label", "Clients/ACME", "--days", "3"])).code).toBe(0);
    expect(read("clients-acme", "2026-11-19.md")).toContain(
      "Attachments (listed, not downloaded):\n\n- contract.pdf (application/pdf, 47.1 KiB)\n- scan.png (image/png, 900 B)\n",
    );
    expect(fake.apiRequests.length).toBeGreaterThan(0);
    expect(fake.apiRequests.filter((r) => r.path.includes("attachments"))).toEqual([]);
  });

  test("read-only: only the gmail.readonly scope is asked for, and every call is a GET of a read endpoint", async () => {
    expect((await ingest(["--label", "Clients/ACME", "--days", "3"])).code).toBe(0);
    expect(fake.tokenScopes).toEqual([MAIL_READONLY_SCOPE]);
    expect(MAIL_READONLY_SCOPE).toBe("https://www.googleapis.com/auth/gmail.readonly");
    expect(new Set(fake.apiRequests.map((r) => r.method))).toEqual(new Set(["GET"]));
    for (const r of fake.apiRequests) expect(r.path).toMatch(/^(labels|threads|threads\/[^/]+)$/);
    for (const r of fake.apiRequests.filter((r) => r.path.startsWith("threads/")))
      expect(r.query.get("format")).toBe("full");
  });

  test("drafts, trash, mail outside the range and mail without the label are left out", async () => {
    expect((await ingest(["--label", "Clients/ACME", "--days", "3"])).code).toBe(0);
    const all = files("clients-acme")
      .map((f) => read("clients-acme", f))
      .join("\n");
    for (const subject of ["Re: Quick question", "Win", "Old", "Unrelated"])
      expect(all).not.toContain(`## ${subject}`);
    expect(all).not.toContain("Body of m7");
    expect(all).toContain("## Quick question");
  });

  test("idempotent: a second run writes the same bytes and the same file list, whatever the API's order", async () => {
    expect((await ingest(["--label", "Clients/ACME", "--days", "3"])).code).toBe(0);
    const before = new Map(files("clients-acme").map((f) => [f, read("clients-acme", f)]));
    fake.mailbox.reverse();
    const again = await ingest(["--label", "Clients/ACME", "--days", "3"]);
    expect(again.code).toBe(0);
    expect(files("clients-acme")).toEqual([...before.keys()]);
    for (const [f, content] of before) expect(read("clients-acme", f)).toBe(content);
    expect(again.stdout).not.toContain("written ");
    expect(again.stdout.match(/^unchanged /gm)).toHaveLength(3);
  });

  test("a changed day is rewritten whole; a day left without mail loses its file; other days are untouched", async () => {
    mkdirSync(join(out, "clients-acme"), { recursive: true });
    writeFileSync(join(out, "clients-acme", "2026-11-18.md"), "stale\n");
    writeFileSync(join(out, "clients-acme", "2026-11-01.md"), "outside the range\n");
    writeFileSync(join(out, "clients-acme", "2026-11-21.md"), "old content\n");
    const result = await ingest(["--label", "Clients/ACME", "--days", "4"]);
    expect(result.code).toBe(0);
    expect(files("clients-acme")).toEqual([
      "2026-11-01.md",
      "2026-11-19.md",
      "2026-11-20.md",
      "2026-11-21.md",
    ]);
    expect(read("clients-acme", "2026-11-01.md")).toBe("outside the range\n");
    expect(read("clients-acme", "2026-11-21.md")).toStartWith("# Label Clients/ACME — 2026-11-21\n");
    expect(result.stdout).toContain(`removed    ${join(out, "clients-acme", "2026-11-18.md")}`);
  });

  test("--query: the search expression goes to the API, the folder is its slug", async () => {
    const result = await ingest(["--query", "from:ada@acme.example", "--days", "3"]);
    expect(result.code).toBe(0);
    const q = threadListings()[0]!.query;
    expect(q.get("q")).toBe(`(from:ada@acme.example) after:${at(18, 0) / 1000} before:${at(23, 0) / 1000}`);
    expect(q.getAll("labelIds")).toEqual([]);
    expect(fake.apiRequests.some((r) => r.path === "labels")).toBe(false);
    // The whole conversation: Ada's message and the reply to her, each on its day.
    expect(files("from-ada-acme-example")).toEqual(["2026-11-20.md", "2026-11-21.md"]);
    expect(read("from-ada-acme-example", "2026-11-20.md")).toStartWith(
      "# Search from:ada@acme.example — 2026-11-20\n\n1 thread, 1 message.",
    );
  });

  test("--tz files a message under its local day; --until moves the range", async () => {
    fake.mailbox.push(
      mailMessage({
        id: "late",
        threadId: "tl",
        at: at(19, 23, 30),
        from: "Late <l@acme.example>",
        subject: "Late",
        labelIds: [ACME],
      }),
    );
    const utc = await ingest(["--label", "Clients/ACME", "--days", "1", "--until", "2026-11-19"]);
    expect(utc.code).toBe(0);
    expect(read("clients-acme", "2026-11-19.md")).toContain("## Late");
    const paris = await ingest([
      "--label",
      "Clients/ACME",
      "--days",
      "1",
      "--until",
      "2026-11-20",
      "--tz",
      "Europe/Paris",
    ]);
    expect(paris.code).toBe(0);
    const day20 = read("clients-acme", "2026-11-20.md");
    expect(day20).toContain("## Late");
    expect(day20).toContain("- **Date:** 2026-11-20 00:30:00 +01:00");
    expect(day20).toContain("(time zone Europe/Paris)");
  });

  test("a busy API (429 with Retry-After) is waited for on the clock, then the run completes", async () => {
    fake.faults.next(/\/threads$/, 1, { kind: "status", status: 429, retryAfter: 2 });
    const run = ingest(["--label", "Clients/ACME", "--days", "3"]);
    await pollUntil(
      () => clock.pending(),
      (n) => n > 0,
    );
    expect(clock.dueTimes()).toEqual([clock.now() + 2000]);
    clock.advance(2000);
    const result = await run;
    expect(result.code).toBe(0);
    expect(fake.faults.injected["429"]).toBe(1);
    expect(files("clients-acme")).toHaveLength(3);
  });

  test("an unknown label fails (exit 1) naming it, and writes nothing", async () => {
    const result = await ingest(["--label", "Nope", "--days", "3"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('mail-ingest: no label "Nope" in the mailbox me\n');
    expect(readdirSync(out)).toEqual([]);
  });

  test("a refused refresh token fails (exit 1) with the OAuth error code, never a secret", async () => {
    const result = await ingest(["--label", "Clients/ACME", "--days", "3"], {
      MAIL_REFRESH_TOKEN: "rt-revoked-secret",
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("token exchange: answered 400 (invalid_grant)");
    for (const secret of [fake.clientSecret, "rt-revoked-secret", fake.refreshToken])
      expect(result.stdout + result.stderr).not.toContain(secret);
  });

  test("a server repeating a page token ends the run instead of paging forever", async () => {
    let pages = 0;
    const api: MailReader = {
      listLabels: async () => [],
      listThreadsPage: async () => {
        pages++;
        return { threads: [{ id: `t${pages}` }], nextPageToken: "same" };
      },
      getThread: async () => undefined,
    };
    const plan = {
      email: "me",
      selector: { kind: "query" as const, query: "x" },
      days: 1,
      timeZone: "UTC",
      outDir: out,
    };
    await expect(ingestMail(plan, { api, clock })).rejects.toThrow(
      "list threads: a page token came back twice",
    );
    expect(pages).toBe(2);
  });
});
