/**
 * Discarding dead letters (docs/webhook-operations.md#discard): a letter that can never succeed is
 * marked `discarded`, with when and by whom, and stays listed; no replay, single or bulk, takes it
 * again. Each discard logs a delivery log record (via `discard`, outcome `discarded`) in the write
 * set that marks the letter, so the two commit together.
 */
import { Conflict } from "../../../src/errors/domain-errors.ts";
import { isoOf } from "../../../src/models/common.ts";
import type { DeadLetter, DiscardReply } from "../../../src/models/dead-letter.ts";
import type { DiscardAsked } from "../../../src/protocols/webhook-ops-protocol.ts";
import { emptySet, type WriteSet } from "../../../src/vault/write-set.ts";
import { deadLetterOf } from "./dead-letters.ts";
import type { TenantIngest } from "./ingest.ts";
import { deadLetterKey } from "./keys.ts";

/** One letter's discard: the write (none when it was discarded already), and the answer. */
export function discardOne(
  ingest: TenantIngest,
  letter: { eventId: string; source?: string },
  asked: DiscardAsked,
  at: number,
): { reply: DiscardReply; set?: WriteSet } {
  const record = deadLetterOf(ingest.store, letter.eventId, letter.source);
  // Asked twice (a form posted again): the first discard stands, when and by whom included.
  if (record.status === "discarded") return { reply: replyOf(record) };
  if (record.status === "replayed")
    throw new Conflict("this dead letter was replayed already: there is nothing left to discard");
  const { replies, set } = discardSet(ingest, [record], asked, at);
  return { reply: replies[0]!, set };
}

/** The write that discards `letters` (all still dead) and logs each; their answers, in order. */
export function discardSet(
  ingest: TenantIngest,
  letters: DeadLetter[],
  asked: DiscardAsked,
  at: number,
): { replies: DiscardReply[]; set: WriteSet } {
  const discarded_at = isoOf(at);
  const updated = letters.map(
    (l): DeadLetter => ({ ...l, status: "discarded", discarded_at, discarded_by: asked.by }),
  );
  const log = updated.map((l) =>
    ingest.log.record(
      {
        event_id: l.event_id,
        source: l.source,
        event_type: l.event_type,
        outcome: "discarded",
        entries: [],
        request_id: asked.requestId,
        via: "discard",
      },
      at,
    ),
  );
  const deadLetters = updated.map((l): [string, unknown] => [deadLetterKey(l.event_id, l.source), l]);
  return { replies: updated.map(replyOf), set: emptySet({ deadLetters, webhooks: { log } }) };
}

function replyOf(l: DeadLetter): DiscardReply {
  return {
    event_id: l.event_id,
    source: l.source,
    status: "discarded",
    discarded_at: l.discarded_at ?? l.received_at,
    discarded_by: l.discarded_by ?? "",
  };
}
