import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UsageError } from "../../src/mail-ingest/errors.ts";
import { DEFAULT_OUT, HELP, parseIngestArgs } from "../../src/mail-ingest/options.ts";

const TENANT = "01JDQ3Z6V8X9Y0A1B2C3D4E5F6";
const ENV = {
  MAIL_CLIENT_ID: "cid",
  MAIL_CLIENT_SECRET: "shh-secret",
  MAIL_REFRESH_TOKEN: "rt-secret",
};
const dir = mkdtempSync(join(tmpdir(), "mail-ingest-options-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function refused(argv: string[], env: Record<string, string> = ENV): string {
  try {
    parseIngestArgs(argv, env);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`accepted: ${argv.join(" ")}`);
}

describe("parseIngestArgs", () => {
  test("--help wins and needs nothing else", () => {
    expect(parseIngestArgs(["--help"], {})).toEqual({ help: true });
    expect(parseIngestArgs(["-h"], {})).toEqual({ help: true });
  });

  test("defaults: out folder, UTC, mailbox 'me', the connector's default addresses", () => {
    const parsed = parseIngestArgs(["--label", " Clients ", "--days", "7"], ENV);
    if (parsed.help) throw new Error("unexpected help");
    expect(parsed.plan).toEqual({
      email: "me",
      selector: { kind: "label", label: "Clients" },
      days: 7,
      timeZone: "UTC",
      outDir: DEFAULT_OUT,
    });
    expect(parsed.credentials).toEqual({
      clientId: "cid",
      clientSecret: "shh-secret",
      refreshToken: "rt-secret",
      tokenUrl: "https://oauth2.googleapis.com/token",
      apiBaseUrl: "https://gmail.googleapis.com",
    });
  });

  test("every option is read; --email wins over MAIL_WATCH_EMAIL", () => {
    const env = { ...ENV, MAIL_WATCH_EMAIL: "watch@example.com", MAIL_API_BASE_URL: "http://127.0.0.1:9" };
    const argv = ["--query", "from:ada", "--days", "2", "--until", "2026-11-20", "--tz", "Europe/Paris"];
    const parsed = parseIngestArgs([...argv, "--out", "arch", "--email", "me@example.com"], env);
    if (parsed.help) throw new Error("unexpected help");
    expect(parsed.plan).toEqual({
      email: "me@example.com",
      selector: { kind: "query", query: "from:ada" },
      days: 2,
      until: "2026-11-20",
      timeZone: "Europe/Paris",
      outDir: "arch",
    });
    expect(parsed.credentials.apiBaseUrl).toBe("http://127.0.0.1:9");
    const fallback = parseIngestArgs(argv, env);
    expect(!fallback.help && fallback.plan.email).toBe("watch@example.com");
  });

  test("--tenant reads the runtime's per-tenant variables, from the environment or the secrets file", () => {
    const file = join(dir, "secrets.env");
    writeFileSync(
      file,
      `MAIL_CLIENT_SECRET_${TENANT}=file-secret\nMAIL_WATCH_EMAIL_${TENANT}=t@example.com\n`,
    );
    chmodSync(file, 0o600);
    const env = {
      [`MAIL_CLIENT_ID_${TENANT}`]: "tenant-cid",
      [`MAIL_REFRESH_TOKEN_${TENANT}`]: "tenant-rt",
      MEMORY_RUNTIME_SECRETS_FILE: file,
    };
    const parsed = parseIngestArgs(["--label", "INBOX", "--days", "1", "--tenant", TENANT], env);
    if (parsed.help) throw new Error("unexpected help");
    expect(parsed.credentials).toMatchObject({
      clientId: "tenant-cid",
      clientSecret: "file-secret",
      refreshToken: "tenant-rt",
    });
    expect(parsed.plan.email).toBe("t@example.com");
  });

  test("missing credentials are named, their values (of those present) never shown", () => {
    const message = refused(["--label", "INBOX", "--days", "1"], { MAIL_CLIENT_SECRET: "shh-secret" });
    expect(message).toContain("MAIL_CLIENT_ID");
    expect(message).toContain("MAIL_REFRESH_TOKEN");
    expect(message).not.toContain("MAIL_CLIENT_SECRET");
    expect(message).not.toContain("shh-secret");
    const tenant = refused(["--label", "INBOX", "--days", "1", "--tenant", TENANT], ENV);
    expect(tenant).toContain(`MAIL_CLIENT_ID_${TENANT}`);
  });

  test("bad arguments are refused with a message saying what is wrong", () => {
    const cases: [string[], RegExp][] = [
      [["--days", "3"], /--label NAME or --query/],
      [["--label", "A", "--query", "b", "--days", "3"], /not both/],
      [["--label", "  ", "--days", "3"], /--label NAME or --query/],
      [["--label", "A"], /--days N/],
      [["--label", "A", "--days", "0"], /--days must be a whole number from 1 to 3650/],
      [["--label", "A", "--days", "2.5"], /--days must be/],
      [["--label", "A", "--days", "99999"], /--days must be/],
      [["--label", "A", "--days", "3", "--until", "2026-02-30"], /--until must be a date/],
      [["--label", "A", "--days", "3", "--tz", "Mars/Olympus"], /not a time zone/],
      [["--label", "A", "--days", "3", "--tenant", "acme"], /--tenant must be a tenant id/],
      [["--label", "A", "--days", "3", "--out", ""], /--out must name a folder/],
      [["--lable", "A", "--days", "3"], /Unknown option '--lable'/],
      [["--label", "A", "--days", "3", "extra"], /positional/],
      [["--label"], /argument missing/],
    ];
    for (const [argv, message] of cases) expect(refused(argv)).toMatch(message);
    expect(refused(["--label", "A", "--days", "1"], { ...ENV, MAIL_API_BASE_URL: "ftp://x" })).toBe(
      "MAIL_API_BASE_URL is not an http(s) URL",
    );
  });

  test("the help names every option and variable", () => {
    for (const word of [
      "--label",
      "--query",
      "--days",
      "--until",
      "--tz",
      "--out",
      "--email",
      "--tenant",
      "--help",
      "MAIL_CLIENT_ID",
      "MAIL_CLIENT_SECRET",
      "MAIL_REFRESH_TOKEN",
      "MAIL_OAUTH_TOKEN_URL",
      "MAIL_API_BASE_URL",
      "MAIL_WATCH_EMAIL",
      "gmail.readonly",
    ])
      expect(HELP).toContain(word);
  });
});
