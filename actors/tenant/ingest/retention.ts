/**
 * Retention of what the webhook operations keep (docs/webhook-operations.md#retention): delivery
 * log records after `deliveryLogDays`, replayed (or discarded) dead letters `deadLetterDays` after that,
 * and dead ones (never replayed) only when `deadDays` is set. The tenant actor removes them in
 * bounded batches, in write sets that only remove (let through at the vault's size ceiling).
 */
import type { DeadLetter } from "../../../src/models/dead-letter.ts";
import type { PurgeReport, Retention } from "../../../src/protocols/webhook-ops-protocol.ts";
import { emptySet, type WriteSet } from "../../../src/vault/write-set.ts";
import type { TenantIngest } from "./ingest.ts";
import { deadLetterKey } from "./keys.ts";

export const DAY_MS = 86_400_000;

/** Records one purge removes at most; the report says `more` when others are due. */
export const MAX_PURGE = 10_000;

/** What is due for removal at `now`, and when the next record falls due. */
export function purgeSet(
  ingest: TenantIngest,
  now: number,
  retention: Retention,
): { report: PurgeReport; set: WriteSet | undefined } {
  const logCutoff = now - retention.deliveryLogDays * DAY_MS;
  const purgedLog = ingest.log.expired(logCutoff, MAX_PURGE + 1);
  let more = purgedLog.length > MAX_PURGE;
  if (more) purgedLog.length = MAX_PURGE;
  let nextDue = more ? now : ingest.log.oldestFrom(logCutoff);
  if (nextDue !== undefined && !more) nextDue += retention.deliveryLogDays * DAY_MS;

  const purgedDeadLetters: string[] = [];
  for (const record of ingest.store.allDeadLetters() as DeadLetter[]) {
    const expires = expiryOf(record, retention);
    if (expires === undefined) continue;
    if (expires > now) nextDue = Math.min(nextDue ?? expires, expires);
    else if (purgedDeadLetters.length < MAX_PURGE)
      purgedDeadLetters.push(deadLetterKey(record.event_id, record.source));
    else more = true;
  }
  const states = ingest.held.states();
  const resuming = [...states].filter(([, s]) => s.resuming).map(([source]) => source);
  const sources = holds(states, ingest.held.counts());
  // A paused source is looked at every pass: the node's figures of it stay current.
  const watched = sources.some((s) => s.paused);
  const report: PurgeReport = {
    delivery_log: purgedLog.length,
    dead_letters: purgedDeadLetters.length,
    more,
    resuming,
    next_due: resuming.length > 0 || watched ? 0 : more ? now : (nextDue ?? null),
    sources,
  };
  const nothing = purgedLog.length === 0 && purgedDeadLetters.length === 0;
  return { report, set: nothing ? undefined : emptySet({ webhooks: { purgedLog, purgedDeadLetters } }) };
}

/** Sources paused or holding events. */
function holds(states: Map<string, { status: string }>, counts: Map<string, number>): PurgeReport["sources"] {
  const names = new Set([...states.keys(), ...counts.keys()]);
  return [...names]
    .map((source) => ({
      source,
      paused: states.get(source)?.status === "paused",
      held: counts.get(source) ?? 0,
    }))
    .filter((s) => s.paused || s.held > 0);
}

/**
 * When a dead letter may go: `deadLetterDays` after its replay or its discard, or (configured)
 * after its arrival while still dead.
 */
function expiryOf(record: DeadLetter, retention: Retention): number | undefined {
  if (record.status !== "dead") {
    const settled = record.status === "replayed" ? record.replayed_at : record.discarded_at;
    return Date.parse(settled ?? record.received_at) + retention.deadLetterDays * DAY_MS;
  }
  if (retention.deadDays === undefined) return undefined;
  return Date.parse(record.received_at) + retention.deadDays * DAY_MS;
}
