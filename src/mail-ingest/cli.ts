/**
 * `bun run mail:ingest`: arguments → plan → run → a short report. Exit 0 when done, 1 when the
 * mail API or the disk failed, 2 on bad arguments. Nothing printed carries a secret: errors of the
 * mail client name the step and the status, and credentials only ever appear by variable name.
 */

import type { Env } from "../config/config.ts";
import { boundedFetch, errorMessage } from "../connectors/transport.ts";
import type { Clock } from "../runtime/clock.ts";
import { MAIL_READONLY_SCOPE, MailApiClient } from "../sources/mail/api.ts";
import { UsageError } from "./errors.ts";
import { type IngestReport, ingestMail } from "./ingest.ts";
import { HELP, parseIngestArgs } from "./options.ts";

/** A request that hangs is a failure, not a stuck command. */
const REQUEST_TIMEOUT_MS = 60_000;

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  clock: Clock;
  fetch?: typeof fetch;
}

function summary(report: IngestReport): string {
  const lines = [
    `mail-ingest: ${report.threads} threads, ${report.messages} messages over ${report.days.length} days ` +
      `(${report.days[0]} to ${report.days[report.days.length - 1]})`,
    ...report.written.map((p) => `written    ${p}`),
    ...report.unchanged.map((p) => `unchanged  ${p}`),
    ...report.removed.map((p) => `removed    ${p}`),
  ];
  return `${lines.join("\n")}\n`;
}

export async function runMailIngest(argv: string[], env: Env, io: CliIo): Promise<number> {
  let command: ReturnType<typeof parseIngestArgs>;
  try {
    command = parseIngestArgs(argv, env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    // As every script's parser does (scripts/cli.ts): the reason, then the usage.
    io.err(`mail-ingest: ${error.message}\n\n${HELP}`);
    return 2;
  }
  if (command.help) {
    io.out(HELP);
    return 0;
  }
  const api = new MailApiClient({
    ...command.credentials,
    scope: MAIL_READONLY_SCOPE,
    clock: io.clock,
    fetch: boundedFetch(io.fetch ?? fetch, undefined, REQUEST_TIMEOUT_MS),
  });
  try {
    io.out(summary(await ingestMail(command.plan, { api, clock: io.clock })));
    return 0;
  } catch (error) {
    io.err(`mail-ingest: ${errorMessage(error)}\n`);
    return 1;
  }
}
