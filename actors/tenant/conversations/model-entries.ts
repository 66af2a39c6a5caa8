/**
 * The model extractor's answers written (src/conversations/model/): each candidate must validate
 * against its category's own schema as the model gave it, and again once the runtime has set
 * what it owns (the scope of its turns, its valid time, its tags and `data.extracted`); one that
 * does not is dropped and counted, never stored half-made. The entries that pass are written with
 * the removal of the job's queue record, in one transaction, trusted no more than their turns
 * (`derivedOrigin`, `by: model:<name>`).
 */

import type { ModelCandidate } from "../../../src/conversations/model/prompt.ts";
import { EXTRACTED_TAG, kindTag } from "../../../src/conversations/tags.ts";
import { ValidationFailed } from "../../../src/errors/domain-errors.ts";
import { isoOf } from "../../../src/models/common.ts";
import type { Entry, EntryDraft } from "../../../src/models/entry.ts";
import { subjectField } from "../../../src/models/scope.ts";
import { derivedOrigin } from "../../../src/provenance/trust.ts";
import { TrustOutranked } from "../../../src/provenance/trust-rule.ts";
import type { Clock } from "../../../src/runtime/clock.ts";
import { later } from "../../../src/runtime/later.ts";
import { batchSet } from "../memory/batch.ts";
import { checkDraft } from "../memory/draft-check.ts";
import type { TenantMemory } from "../memory/memory.ts";
import type { SliceHandlers } from "../slice.ts";
import { pendingOf, prepare } from "./conversations.ts";
import type { ExtractBacklog, ExtractRecord } from "./extract-backlog.ts";

export function modelEntryHandlers(
  memory: TenantMemory,
  clock: Clock,
  backlog: ExtractBacklog | undefined,
): SliceHandlers<"conversation.extracted" | "conversation.unqueue"> {
  return {
    "conversation.extracted": ({ key, turnIds, candidates }) => {
      const record = backlog?.record(key);
      // Settled already (a second answer to the same job): nothing more is written.
      if (!backlog || !record) return { stored: 0, dropped: 0 };
      return write(memory, clock.now(), backlog, { key, record, turnIds, candidates });
    },
    "conversation.unqueue": ({ key }) => {
      if (!backlog?.record(key)) return undefined;
      const committed = memory.writer.commit({ entries: [], created: [], state: [[key, null]] }, undefined);
      return later(
        committed.then(() => {
          backlog.settled(key);
          return undefined;
        }),
      );
    },
  };
}

interface Job {
  key: string;
  record: ExtractRecord;
  turnIds: string[];
  candidates: ModelCandidate[];
}

function write(memory: TenantMemory, now: number, backlog: ExtractBacklog, job: Job) {
  const pending = pendingOf(memory);
  const by = `model:${backlog.model}`;
  let dropped = 0;
  let stored = 0;
  for (const candidate of job.candidates) {
    const turns = candidate.turns
      .map((i) => pending.lookup(job.turnIds[i]!)?.entry)
      .filter((e) => e !== undefined);
    const draft =
      turns.length === candidate.turns.length ? draftOf(candidate, job.record, turns, by) : undefined;
    if (!draft) {
      dropped++;
      continue;
    }
    try {
      const provenance = derivedOrigin(by, turns);
      const item = { draft, vector: undefined, path: "extracted", provenance };
      const msg = { createdBy: job.record.created_by };
      if (prepare(memory, pending, msg, now, item).status === 201) stored++;
    } catch (error) {
      if (!(error instanceof ValidationFailed || error instanceof TrustOutranked)) throw error;
      dropped++;
    }
  }
  const set = batchSet(pending.created, [...pending.overlay.values()], now);
  set.state = [[job.key, null]];
  const committed = memory.writer.commit(set, undefined);
  for (const { prepared } of pending.created) memory.indexes.add(prepared.stored.entry, undefined);
  memory.flush.schedule();
  return later(
    committed.then(() => {
      backlog.settled(job.key);
      return { stored, dropped };
    }),
  );
}

/** Fields the runtime sets on a model's entry, whatever the model wrote there. */
const OWNED = ["session_id", "agent_id", "valid_from", "valid_to", "supersedes", "data"];

/** The candidate as the entry written, or undefined when it or the result fails its category's schema. */
function draftOf(
  c: ModelCandidate,
  record: ExtractRecord,
  turns: Entry[],
  by: string,
): EntryDraft | undefined {
  const given = c.entry as unknown as EntryDraft;
  if (!valid(given)) return undefined;
  const body: Record<string, unknown> = { ...c.entry };
  for (const field of [...OWNED, subjectField(given.category)]) delete body[field];
  const tags = Array.isArray(body.tags) ? (body.tags as string[]) : [];
  const at = Math.max(...turns.map((t) => Date.parse(t.valid_from)));
  const draft: Record<string, unknown> = {
    ...body,
    tags: [...new Set([...tags, EXTRACTED_TAG, kindTag(c.kind)])],
    valid_from: isoOf(at),
    session_id: record.session_id,
    data: { extracted: { kind: c.kind, by, turn_ids: turns.map((t) => t.id) } },
  };
  if (record.subject !== undefined) draft[subjectField(given.category)] = record.subject;
  if (record.agent_id !== undefined) draft.agent_id = record.agent_id;
  return valid(draft as EntryDraft) ? (draft as EntryDraft) : undefined;
}

function valid(draft: EntryDraft): boolean {
  try {
    checkDraft(draft);
    return true;
  } catch (error) {
    if (error instanceof ValidationFailed) return false;
    throw error;
  }
}
