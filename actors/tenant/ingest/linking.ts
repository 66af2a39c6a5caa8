/**
 * What a source's draft becomes before it is written: stamped with its source, a promotion filled
 * in from the message it promotes, an outcome linked to the latest decision about its object (or
 * kept as a fact when there is none). Reads only; refusals are the dead letter's reason.
 */
import { AppError } from "../../../src/errors/domain-errors.ts";
import type { IngestItem } from "../../../src/ingest/ingest-item.ts";
import type { EntryDraft } from "../../../src/models/entry.ts";
import type { IngestDraft } from "../../../src/sources/types.ts";
import type { EntryStore } from "../memory/entry-store.ts";
import type { IngestStore } from "./ingest-store.ts";
import { decisionKey, dedupeKey } from "./keys.ts";

/** A draft referring to something the tenant does not hold (yet): its message is the dead letter's reason. */
export class UnknownReference extends AppError {
  override readonly status = 422;
  override readonly code = "validation_failed";
}

/** The tables a draft is linked against (a delivery's own writes overlaid: delivery-set.ts). */
interface Reads {
  store: Pick<IngestStore, "deduped" | "objectLatest">;
  entries: Pick<EntryStore, "get">;
}

/**
 * Sets the source stamp; fills in a promotion; links an outcome to the latest decision about its
 * object (or, with no such decision, makes it a fact tagged `outcome`).
 */
export function linkedDraft(reads: Reads, ingest: IngestDraft, source: string, item: IngestItem): EntryDraft {
  const stamp = { system: source, event_id: item.event.event_id, event_type: item.event.event_type };
  const stamped = { ...ingest.draft, source: { ...stamp, ...ingest.draft.source } } as EntryDraft;
  const promoted = ingest.promotes ? promoting(reads, stamped, source, ingest.promotes) : stamped;
  // An outcome names the decision it resolves, through its object or its own decision_id; one that
  // can name none (a payment of no known customer) is kept as a fact rather than dead-lettered.
  const unlinked = promoted.category === "outcome" && !("decision_id" in promoted && promoted.decision_id);
  return ingest.outcome_of || unlinked ? outcomeOrFact(reads, promoted, ingest.outcome_of) : promoted;
}

/** A decision promoting a message this tenant holds (found through the message event's dedupe record). */
function promoting(reads: Reads, draft: EntryDraft, source: string, messageEventId: string): EntryDraft {
  const record = reads.store.deduped(dedupeKey(source, messageEventId));
  const messageId = record?.entries[0];
  const message = messageId ? reads.entries.get(messageId) : undefined;
  if (!message) throw new UnknownReference(`unknown_message: no message ${messageEventId} has arrived`);
  const data = {
    ...((draft as { data?: Record<string, unknown> }).data ?? {}),
    message_id: message.entry.id,
  };
  return { ...draft, content: message.entry.content, rationale: draft.content, data } as EntryDraft;
}

function outcomeOrFact(reads: Reads, draft: EntryDraft, objectKey: string | undefined): EntryDraft {
  const decisionId = objectKey ? reads.store.objectLatest(decisionKey(objectKey)) : undefined;
  const decision = decisionId ? reads.entries.get(decisionId) : undefined;
  if (decision?.entry.category === "decision" && decision.entry.expired_at === null) {
    return { ...draft, category: "outcome", decision_id: decision.entry.id } as EntryDraft;
  }
  // No decision to resolve: a fact that keeps what the outcome said (SOURCES.md).
  const {
    category: _c,
    result,
    amount,
    currency,
    decision_id: _d,
    ...rest
  } = draft as Record<string, unknown>;
  const tags = [...new Set(["outcome", ...((rest.tags as string[] | undefined) ?? [])])].slice(0, 64);
  const said = Object.entries({ result, amount, currency }).filter(([, v]) => v !== undefined);
  const data = {
    ...((rest.data as Record<string, unknown> | undefined) ?? {}),
    ...Object.fromEntries(said),
  };
  return { ...rest, category: "fact", tags, data } as unknown as EntryDraft;
}
