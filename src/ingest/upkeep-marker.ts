/**
 * A tenant whose vault holds webhook records that expire (the delivery log, replayed dead letters)
 * or a resume to finish has this file in its vault directory, holding when the upkeep should look
 * next (epoch ms), so the upkeep (webhook-upkeep.ts) knows which closed vaults to open without
 * opening every one. Like the outbound marker, a hint on the safe side: the tenant actor writes it
 * before the first such record of its run commits, and rewrites or removes it after each purge.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const UPKEEP_MARKER = "webhook-upkeep";

/** The earliest a record written now can expire: retention is at least a day. */
const FIRST_DUE_MS = 86_400_000;

/** Makes sure the marker exists (a fresh one is due a day from `now`); an existing one already names an earlier time. */
export function markUpkeep(vaultDir: string, now: number): void {
  const path = join(vaultDir, UPKEEP_MARKER);
  if (!existsSync(path)) writeFileSync(path, String(now + FIRST_DUE_MS));
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
