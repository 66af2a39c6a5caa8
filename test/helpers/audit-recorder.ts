/**
 * A fake admin audit sink for service unit tests: it logs, in the order things happen, when a record
 * is begun and when it is committed (`log`, shared with the test's other fakes), keeps the records
 * committed, and can hold the commit (`hold`) or fail it (`fail`).
 */
import type { AdminEvent } from "../../src/models/admin-event.ts";

export interface AuditRecorder {
  audit(event: Omit<AdminEvent, "at">): Promise<void>;
  audited: Array<Omit<AdminEvent, "at">>;
  log: string[];
}

export function auditRecorder(
  log: string[] = [],
  opts: { hold?: Promise<void>; fail?: Error } = {},
): AuditRecorder {
  const audited: Array<Omit<AdminEvent, "at">> = [];
  return {
    log,
    audited,
    async audit(event) {
      log.push(`audit ${event.action}`);
      await opts.hold;
      if (opts.fail) throw opts.fail;
      audited.push(event);
      log.push("audit committed");
    },
  };
}

/** Lets every already-settled step of a chain of awaits run (no timer, no clock). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}
