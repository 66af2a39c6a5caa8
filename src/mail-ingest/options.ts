/**
 * The command line and environment of `bun run mail:ingest`, checked before anything is read.
 * Credentials use the mail connector's variable names: un-suffixed by default, or the runtime's
 * per-tenant `<NAME>_<TENANT_ID>` variables (environment, then MEMORY_RUNTIME_SECRETS_FILE) with
 * `--tenant`. The token and API addresses are process-wide, as in the runtime.
 */
import { parseArgs } from "node:util";
import type { Env } from "../config/config.ts";
import { ULID_RE } from "../models/common.ts";
import { Secrets, variableName } from "../secrets/secrets.ts";
import { isDay, isTimeZone } from "./days.ts";
import { UsageError } from "./errors.ts";
import type { IngestPlan } from "./ingest.ts";
import type { Selector } from "./layout.ts";

export const DEFAULT_OUT = "./mail-archive";
export const MAX_DAYS = 3650;
const DEFAULT_TOKEN_URL = "https://oauth2.googleapis.com/token";
const DEFAULT_API_BASE_URL = "https://gmail.googleapis.com";

export const HELP = `Usage: bun run mail:ingest (--label NAME | --query "EXPRESSION") --days N [options]

Reads the mail threads of a label, or matching a search expression, received in the last N days,
and writes one Markdown file per day: <out>/<label or query slug>/<YYYY-MM-DD>.md. Read-only: it
asks only for the gmail.readonly scope, makes only GET requests, and never downloads attachments
(they are listed by name, type and size).

Options:
  --label NAME         a label's name (case-insensitive) or id, e.g. INBOX or "Clients/ACME"
  --query EXPRESSION   a search expression, e.g. "from:billing@example.com has:attachment"
                       (give exactly one of --label and --query)
  --days N             how many days, ending with today (or --until), from 1 to ${MAX_DAYS}
  --until YYYY-MM-DD   the last day of the range (default: today in --tz)
  --tz ZONE            the time zone of the days, an IANA name such as Europe/Paris (default: UTC)
  --out FOLDER         where the files go (default: ${DEFAULT_OUT})
  --email ADDRESS      the mailbox (default: MAIL_WATCH_EMAIL, else "me": the credentials' own account)
  --tenant TENANT_ID   read the credentials from the runtime's per-tenant variables
                       (MAIL_CLIENT_ID_<TENANT_ID>, ...; environment, then MEMORY_RUNTIME_SECRETS_FILE)
  -h, --help           show this help

Days: each message goes in the file of the day it was received, in --tz; a thread whose messages
span two days appears in both days' files, each with that day's messages. Every day of the range
is rewritten whole (atomically); a day with no message left has its old file removed. Running
twice over the same days writes the same bytes.

Environment (values are never printed):
  MAIL_CLIENT_ID, MAIL_CLIENT_SECRET, MAIL_REFRESH_TOKEN   OAuth 2.0 client and refresh token (required)
  MAIL_WATCH_EMAIL       the default mailbox
  MAIL_OAUTH_TOKEN_URL   token endpoint (default: ${DEFAULT_TOKEN_URL})
  MAIL_API_BASE_URL      mail API address (default: ${DEFAULT_API_BASE_URL})

Exit status: 0 done, 1 the mail API or the disk failed, 2 bad arguments or environment.
`;

export interface MailCredentials {
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  tokenUrl: string;
  apiBaseUrl: string;
}

export type ParsedCommand = { help: true } | { help: false; plan: IngestPlan; credentials: MailCredentials };

const OPTIONS = {
  label: { type: "string" },
  query: { type: "string" },
  days: { type: "string" },
  until: { type: "string" },
  tz: { type: "string" },
  out: { type: "string" },
  email: { type: "string" },
  tenant: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

function readArgs(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    // parseArgs explains itself ("Unknown option '--lable'"); that is the message to show.
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function selectorOf(label: string | undefined, query: string | undefined): Selector {
  if (label !== undefined && query !== undefined) throw new UsageError("give --label or --query, not both");
  if (label?.trim()) return { kind: "label", label: label.trim() };
  if (query?.trim()) return { kind: "query", query: query.trim() };
  throw new UsageError('give --label NAME or --query "EXPRESSION"');
}

function daysOf(value: string | undefined): number {
  if (value === undefined) throw new UsageError("give --days N, the number of days to read");
  const days = /^\d{1,5}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!(days >= 1 && days <= MAX_DAYS))
    throw new UsageError(`--days must be a whole number from 1 to ${MAX_DAYS}`);
  return days;
}

function urlOf(env: Env, name: string, fallback: string): string {
  const value = env[name] || fallback;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {}
  if (url?.protocol !== "https:" && url?.protocol !== "http:")
    throw new UsageError(`${name} is not an http(s) URL`);
  return value;
}

/** The three credentials and the default mailbox, un-suffixed or for `--tenant`. */
function secretsOf(env: Env, tenant: string | undefined) {
  if (tenant === undefined)
    return { get: (name: string) => env[name] || undefined, name: (base: string) => base };
  if (!ULID_RE.test(tenant)) throw new UsageError("--tenant must be a tenant id (a ULID)");
  let secrets: Secrets;
  try {
    secrets = new Secrets(env, env.MEMORY_RUNTIME_SECRETS_FILE || undefined);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  return {
    get: (base: string) => secrets.get(base, tenant),
    name: (base: string) => variableName(base, tenant),
  };
}

function credentialsOf(env: Env, tenant: string | undefined): MailCredentials & { email?: string } {
  const secrets = secretsOf(env, tenant);
  const bases = ["MAIL_CLIENT_ID", "MAIL_CLIENT_SECRET", "MAIL_REFRESH_TOKEN"];
  const missing = bases.filter((base) => !secrets.get(base)).map(secrets.name);
  if (missing.length > 0) throw new UsageError(`set ${missing.join(", ")} (the mail API credentials)`);
  return {
    clientId: secrets.get("MAIL_CLIENT_ID")!,
    clientSecret: secrets.get("MAIL_CLIENT_SECRET")!,
    refreshToken: secrets.get("MAIL_REFRESH_TOKEN")!,
    tokenUrl: urlOf(env, "MAIL_OAUTH_TOKEN_URL", DEFAULT_TOKEN_URL),
    apiBaseUrl: urlOf(env, "MAIL_API_BASE_URL", DEFAULT_API_BASE_URL),
    email: secrets.get("MAIL_WATCH_EMAIL")?.trim() || undefined,
  };
}

export function parseIngestArgs(argv: string[], env: Env): ParsedCommand {
  const args = readArgs(argv);
  if (args.help) return { help: true };
  const selector = selectorOf(args.label, args.query);
  const days = daysOf(args.days);
  if (args.until !== undefined && !isDay(args.until))
    throw new UsageError("--until must be a date, YYYY-MM-DD");
  const timeZone = args.tz ?? "UTC";
  if (!isTimeZone(timeZone))
    throw new UsageError(`--tz ${timeZone} is not a time zone (e.g. UTC, Europe/Paris)`);
  const outDir = args.out ?? DEFAULT_OUT;
  if (!outDir.trim()) throw new UsageError("--out must name a folder");
  const { email, ...credentials } = credentialsOf(env, args.tenant);
  const mailbox = args.email?.trim() || email || "me";
  const plan: IngestPlan = { email: mailbox, selector, days, timeZone, outDir };
  if (args.until !== undefined) plan.until = args.until;
  return { help: false, plan, credentials };
}
