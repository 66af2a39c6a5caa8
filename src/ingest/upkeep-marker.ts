/**
 * A tenant whose vault holds webhook records that expire (the delivery log, replayed dead letters)
 * or a resume to finish has this file in its vault directory, holding when the upkeep should look
 * next (epoch ms), so the upkeep (webhook-upkeep.ts) knows which closed vaults to open without
 * opening every one. Like the outbound marker, a hint on the safe side: the tenant actor writes it
 * before the first such record of its run commits, and rewrites or removes it after each purge.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const UPKEEP_MARKER = "webhook-upkeep";

/** The earliest a record written now can expire: retention is at least a day. */
const FIRST_DUE_MS = 86_400_000;

/**
 * Makes sure the marker names a day from `now` or earlier: a record written now expires no sooner.
 * An existing marker usually names an earlier time already; a later one is brought forward (a
 * letter discarded now expires after `deadLetterDays`, which may come before the log's next expiry).
 */
export function markUpkeep(vaultDir: string, now: number): void {
  const due = upkeepDue(vaultDir);
  if (due === undefined || due > now + FIRST_DUE_MS)
    writeFileSync(join(vaultDir, UPKEEP_MARKER), String(now + FIRST_DUE_MS));
}

/** Sets when the upkeep should look next; none: nothing to look after, the marker goes. */
export function setUpkeepDue(vaultDir: string, due: number | null): void {
  const path = join(vaultDir, UPKEEP_MARKER);
  if (due === null) rmSync(path, { force: true });
  else writeFileSync(path, String(due));
}

/** When the upkeep should look at this vault next; undefined without a marker (an unreadable one: now). */
export function upkeepDue(vaultDir: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(join(vaultDir, UPKEEP_MARKER), "utf8");
  } catch {
    return undefined;
  }
  const due = Number(text.trim());
  return Number.isFinite(due) ? due : 0;
}
