import { ValidationFailed } from "../../../src/errors/domain-errors.ts";
import type { StoredEntry } from "../../../src/memory/temporal.ts";
import type { ChangeDraft } from "../../../src/models/change.ts";
import type { Entry, EntryDraft } from "../../../src/models/entry.ts";
import type { WriteSet } from "../../../src/vault/write-set.ts";

export interface CreateMany {
  drafts: EntryDraft[];
  createdBy: string;
  /** Each draft's embedding (or undefined), computed before the message. */
  vectors: Array<Float32Array | undefined>;
  idempotencyKey?: string;
}

/** A batch's answer: the entries in request order, each 201 (written) or 200 (already stored). */
export interface BatchReply {
  entries: Entry[];
  statuses: Array<200 | 201>;
}

export interface BatchWritten {
  status: 200 | 201;
  reply: BatchReply;
  /** The stored first answer to an Idempotency-Key used before: nothing was written this time. */
  replayed?: true;
  committed: Promise<void>;
}

/** A batch item to write: its prepared entry (MemoryWriter.prepare) and vector. */
export interface BatchItem {
  prepared: { stored: StoredEntry; changes: ChangeDraft[] };
  vector?: Float32Array;
}

/** Runs a batch item's step; a refusal names the item (`entries/3: …`, paths `/entries/3/…`). */
export function atIndex<T>(i: number, step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (!(error instanceof ValidationFailed)) throw error;
    const errors = (error.errors ?? []).map((e) => ({ ...e, path: `/entries/${i}${e.path}` }));
    throw new ValidationFailed(`entries/${i}: ${error.message}`, errors);
  }
}

/** One write set for a batch: each entry in its final state, every change in order. */
export function batchSet(created: BatchItem[], entries: StoredEntry[], now: number): WriteSet {
  const vectors: Array<[string, Float32Array]> = [];
  for (const { prepared, vector } of created) if (vector) vectors.push([prepared.stored.entry.id, vector]);
  return {
    entries,
    created: created.map((c) => c.prepared.stored),
    changes: created.flatMap((c) => c.prepared.changes),
    vectors,
    at: now,
  };
}
