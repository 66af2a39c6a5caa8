/** `bun run mail:ingest` as a real subprocess, against the local mail fake. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HELP } from "../../src/mail-ingest/options.ts";
import { MAIL_READONLY_SCOPE } from "../../src/sources/mail/api.ts";
import { attachmentPart, mailMessage, multipart, textPart } from "../fakes/mail-messages.ts";
import { type FakeMailProvider, startFakeMailProvider } from "../fakes/mail-provider.ts";
import { cleanEnv, run } from "../helpers/spawn.ts";

let fake: FakeMailProvider;
const root = mkdtempSync(join(tmpdir(), "mail-ingest-cli-"));
const at = (day: number, h: number) => Date.UTC(2026, 10, day, h);

const NO_CREDENTIALS = {
  MAIL_CLIENT_ID: "",
  MAIL_CLIENT_SECRET: "",
  MAIL_REFRESH_TOKEN: "",
  MAIL_WATCH_EMAIL: "",
};

function credentials(): Record<string, string> {
  return {
    MAIL_CLIENT_ID: fake.clientId,
    MAIL_CLIENT_SECRET: fake.clientSecret,
    MAIL_REFRESH_TOKEN: fake.refreshToken,
    MAIL_OAUTH_TOKEN_URL: fake.tokenUrl,
    MAIL_API_BASE_URL: fake.apiBaseUrl,
    MAIL_WATCH_EMAIL: "ops@example.com",
  };
}

/** Runs the package.json script; bun echoes the command it runs (`$ bun run scripts/...`) first. */
async function mailIngest(args: string[], env: Record<string, string> = {}) {
  const result = await run(
    ["bun", "run", "mail:ingest", ...args],
    cleanEnv({ ...NO_CREDENTIALS, ...env }),
    30_000,
  );
  const [echo, ...rest] = result.stderr.split("\n");
  expect(echo).toStartWith("$ bun run scripts/mail-ingest.ts");
  return { ...result, stderr: rest.join("\n") };
}

beforeAll(async () => {
  fake = await startFakeMailProvider({ threadPageSize: 1 });
  fake.labels.push({ id: "Label_3", name: "Clients", type: "user" });
  fake.mailbox = [
    mailMessage({
      id: "m1",
      threadId: "t1",
      at: at(20, 9),
      from: "=?ISO-8859-1?Q?Andr=E9?= <andre@example.com>",
      subject: "=?UTF-8?Q?R=C3=A9sum=C3=A9_du_contrat?=",
      labelIds: ["Label_3"],
      payload: multipart("mixed", [
        textPart("<p>Voir la pi&egrave;ce jointe.</p>", "text/html"),
        attachmentPart("contrat.pdf", "application/pdf", 2048, "att-1"),
      ]),
    }),
    mailMessage({
      id: "m2",
      threadId: "t1",
      at: at(21, 7),
      from: "Ops <ops@example.com>",
      subject: "Re: Résumé",
      labelIds: ["SENT"],
    }),
    mailMessage({
      id: "m3",
      threadId: "t2",
      at: at(21, 8),
      from: "Bea <bea@example.com>",
      subject: "Hello",
      labelIds: ["Label_3"],
    }),
  ];
});

afterAll(() => {
  fake.stop();
  rmSync(root, { recursive: true, force: true });
});

describe("bun run mail:ingest", () => {
  test("--help exits 0 and names every option", async () => {
    const result = await mailIngest(["--help"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    for (const option of [
      "--label",
      "--query",
      "--days",
      "--until",
      "--tz",
      "--out",
      "--email",
      "--tenant",
      "--help",
    ])
      expect(result.stdout).toContain(option);
    expect(result.stdout).toContain("gmail.readonly");
  });

  test("bad arguments exit 2 with a clear message and nothing on stdout", async () => {
    const cases: [string[], string][] = [
      [["--days", "3"], 'give --label NAME or --query "EXPRESSION"'],
      [["--label", "Clients", "--days", "soon"], "--days must be a whole number from 1 to 3650"],
      [["--label", "Clients", "--days", "3", "--bogus"], "Unknown option '--bogus'"],
    ];
    for (const [args, message] of cases) {
      const result = await mailIngest(args, credentials());
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe(`mail-ingest: ${message}\n\n${HELP}`);
    }
  });

  test("missing credentials exit 2 naming the variables", async () => {
    const result = await mailIngest(["--label", "Clients", "--days", "1"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("set MAIL_CLIENT_ID, MAIL_CLIENT_SECRET, MAIL_REFRESH_TOKEN");
  });

  test("writes the label's days, read-only, and a second run leaves the same bytes", async () => {
    const out = join(root, "archive");
    const args = ["--label", "clients", "--days", "2", "--until", "2026-11-21", "--out", out];
    const first = await mailIngest(args, credentials());
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      "mail-ingest: 2 threads, 3 messages over 2 days (2026-11-20 to 2026-11-21)",
    );

    const folder = join(out, "clients");
    expect(readdirSync(folder).sort()).toEqual(["2026-11-20.md", "2026-11-21.md"]);
    const day20 = readFileSync(join(folder, "2026-11-20.md"), "utf8");
    expect(day20).toStartWith("# Label Clients — 2026-11-20\n");
    expect(day20).toContain("## Résumé du contrat");
    expect(day20).toContain("- **From:** André \\<andre@example.com\\>");
    expect(day20).toContain("```text\nVoir la pièce jointe.\n```");
    expect(day20).toContain("- contrat.pdf (application/pdf, 2.0 KiB)");
    expect(readFileSync(join(folder, "2026-11-21.md"), "utf8")).toContain("## Re: Résumé");

    const bytes = readdirSync(folder).map((f) => readFileSync(join(folder, f)));
    const second = await mailIngest(args, credentials());
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`unchanged  ${join(folder, "2026-11-20.md")}`);
    expect(readdirSync(folder).sort()).toEqual(["2026-11-20.md", "2026-11-21.md"]);
    expect(readdirSync(folder).map((f) => readFileSync(join(folder, f)))).toEqual(bytes);

    // Only the read-only scope, only GETs, no attachment fetched; the mailbox from MAIL_WATCH_EMAIL.
    expect(new Set(fake.tokenScopes)).toEqual(new Set([MAIL_READONLY_SCOPE]));
    expect(new Set(fake.apiRequests.map((r) => r.method))).toEqual(new Set(["GET"]));
    expect(fake.apiRequests.some((r) => r.path.includes("attachments"))).toBe(false);
    // One thread a page: two pages a run, the second asked for with the first's token.
    expect(fake.apiRequests.filter((r) => r.path === "threads").map((r) => r.query.get("pageToken"))).toEqual(
      [null, "1", null, "1"],
    );
    // No secret in anything printed.
    for (const secret of [fake.clientSecret, fake.refreshToken, "-secret"])
      expect(first.stdout + first.stderr + second.stdout + second.stderr).not.toContain(secret);
  });
});
