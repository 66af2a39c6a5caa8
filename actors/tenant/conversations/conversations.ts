/**
 * The conversation part of the tenant actor: a call's new turns and what is extracted from them,
 * prepared in order through the memory writer (each sees the ones before it: a turn's id is known
 * to the entries extracted from it, a statement supersedes the one before it about the same key)
 * and written as one write set, one transaction; or, with `dryRun`, answered and not written.
 */
import { extractedEntryDraft } from "../../../src/conversations/drafts.ts";
import type { ExtractedDraft } from "../../../src/conversations/extract/types.ts";
import type { PlannedTurn } from "../../../src/conversations/plan.ts";
import { keyTag } from "../../../src/conversations/tags.ts";
import { Conflict, ValidationFailed } from "../../../src/errors/domain-errors.ts";
import type { StoredEntry } from "../../../src/memory/temporal.ts";
import type { ConversationReply } from "../../../src/models/conversation.ts";
import type { EntryDraft } from "../../../src/models/entry.ts";
import type { Provenance } from "../../../src/models/origin.ts";
import type { AddConversation } from "../../../src/protocols/conversation-protocol.ts";
import { derivedOrigin } from "../../../src/provenance/trust.ts";
import { TrustOutranked } from "../../../src/provenance/trust-rule.ts";
import type { Clock } from "../../../src/runtime/clock.ts";
import { later } from "../../../src/runtime/later.ts";
import { type BatchItem, batchSet } from "../memory/batch.ts";
import { checkDraft } from "../memory/draft-check.ts";
import type { TenantMemory } from "../memory/memory.ts";
import type { EntryLookup } from "../memory/side-effects.ts";
import type { SliceHandlers } from "../slice.ts";
import { type ExtractBacklog, modelJobs } from "./extract-backlog.ts";
import { nextPosition, type StoredTurn, sessionTurns } from "./session-turns.ts";

/** A call being prepared: what it writes so far, seen by each next draft. */
export interface Pending {
  overlay: Map<string, StoredEntry>;
  lookup: EntryLookup;
  created: BatchItem[];
  /** The newest live entry of each key this call wrote: the next statement about it supersedes it. */
  holders: Map<string, { id: string; validFrom: number }>;
}

export function conversationHandlers(
  memory: TenantMemory,
  clock: Clock,
  backlog?: ExtractBacklog,
): SliceHandlers<"conversation.add" | "conversation.turns" | "conversation.length"> {
  return {
    "conversation.add": (msg) => add(memory, clock.now(), msg, backlog),
    "conversation.length": ({ sessionId, subject }) =>
      nextPosition(sessionTurns(memory.entries, sessionId, subject)),
    "conversation.turns": ({ sessionId, subject, limit, after }) => {
      const turns = [...sessionTurns(memory.entries, sessionId, subject).values()]
        .filter((t) => t.stored.entry.expired_at === null && (after === undefined || t.position > after))
        .sort((a, b) => a.position - b.position);
      const page = turns.slice(0, limit);
      return {
        session_id: sessionId,
        turns: page.map((t) => ({ position: t.position, entry: t.stored.entry })),
        last: page.at(-1)?.position,
        more: turns.length > limit,
      };
    },
  };
}

/** An empty write set in preparation, reading through to the stored entries. */
export function pendingOf(memory: TenantMemory): Pending {
  const overlay = new Map<string, StoredEntry>();
  return {
    overlay,
    lookup: (id) => overlay.get(id) ?? memory.entries.get(id),
    created: [],
    holders: new Map(),
  };
}

function add(memory: TenantMemory, now: number, msg: AddConversation, backlog?: ExtractBacklog) {
  const { plan } = msg;
  const stored = sessionTurns(memory.entries, plan.sessionId, msg.subject);
  const fresh = newTurns(plan.turns, stored);
  const pending = pendingOf(memory);
  const overlay = pending.overlay;
  const turnIds: string[] = [];
  const turnStatus: Array<200 | 201> = [];
  plan.turns.forEach((turn, i) => {
    const kept = stored.get(turn.position);
    if (kept) {
      turnIds.push(kept.stored.entry.id);
      turnStatus.push(200);
      return;
    }
    const item = {
      draft: turn.draft,
      vector: msg.turnVectors[i],
      path: `messages/${i}`,
      provenance: msg.provenance,
    };
    const written = prepare(memory, pending, msg, now, item);
    turnIds.push(written.id);
    turnStatus.push(written.status);
  });
  const extracted: Array<{ x: ExtractedDraft; id: string; status: 200 | 201 }> = [];
  plan.extracted.forEach((x, j) => {
    // What stored turns alone say was extracted when they were written.
    if (!x.turns.some((i) => fresh.has(i))) return;
    const written = prepareExtracted(memory, pending, msg, x, turnIds, now, msg.extractedVectors[j]);
    if (written) extracted.push({ x, ...written });
  });
  const body = replyOf(msg, pending.lookup, { turnIds, turnStatus, extracted });
  const status = pending.created.length > 0 && !msg.dryRun ? 201 : 200;
  if (msg.dryRun || pending.created.length === 0) return { status, body } as const;
  const set = batchSet(pending.created, [...overlay.values()], now);
  // The model extractor's jobs (http) are written with the turns they read: none lost, none half-made.
  const jobs = backlog && plan.extractor !== null ? modelJobs(msg, turnIds, fresh, now) : [];
  if (jobs.length > 0) set.state = jobs.map((job) => [job.key, job.record]);
  const committed = memory.writer.commit(set, undefined);
  for (const job of jobs) backlog!.queued(job.key, job.record, committed);
  for (const { prepared, vector } of pending.created) memory.indexes.add(prepared.stored.entry, vector);
  memory.flush.schedule();
  return later(committed.then(() => ({ status, body }) as const));
}

/** The answer: the call's turns and what was extracted, each entry as this call leaves it. */
function replyOf(
  msg: AddConversation,
  lookup: EntryLookup,
  done: {
    turnIds: string[];
    turnStatus: Array<200 | 201>;
    extracted: Array<{ x: ExtractedDraft; id: string; status: 200 | 201 }>;
  },
): ConversationReply {
  const { plan } = msg;
  const entryOf = (id: string) => (lookup(id) as StoredEntry).entry;
  return {
    session_id: plan.sessionId,
    dry_run: msg.dryRun,
    extractor: plan.extractor,
    turns: plan.turns.map((t, i) => ({
      position: t.position,
      status: done.turnStatus[i]!,
      entry: entryOf(done.turnIds[i]!),
    })),
    extracted: done.extracted.map(({ x, id, status }) => ({
      kind: x.kind,
      status,
      positions: x.turns.map((i) => plan.turns[i]!.position),
      entry: entryOf(id),
    })),
  };
}

/**
 * The plan's turns the session does not hold yet, by index in the plan. A message at a stored
 * position must be the message stored there (409 otherwise); new ones must continue the session
 * without a gap and without going back in time.
 */
function newTurns(turns: PlannedTurn[], stored: Map<number, StoredTurn>): Set<number> {
  const next = nextPosition(stored);
  const fresh = new Set<number>();
  turns.forEach((turn, i) => {
    const kept = stored.get(turn.position);
    if (kept) {
      if (kept.digest !== turn.digest)
        throw new Conflict(
          `messages/${i}: position ${turn.position} of this session holds another message (send the transcript from its start, or \`offset\` ${next} to append)`,
        );
      return;
    }
    if (turn.position > next && !fresh.has(i - 1))
      fail(`/offset`, `the session holds ${next} turns: the first new message must be at position ${next}`);
    const before = stored.get(turn.position - 1);
    if (before && Date.parse(before.stored.entry.valid_from) > turn.at)
      fail(`/messages/${i}/at`, `goes back before turn ${turn.position - 1} of this session`);
    fresh.add(i);
  });
  return fresh;
}

function prepareExtracted(
  memory: TenantMemory,
  pending: Pending,
  msg: AddConversation,
  x: ExtractedDraft,
  turnIds: string[],
  now: number,
  vector: Float32Array | undefined,
): { id: string; status: 200 | 201 } | undefined {
  const links: Parameters<typeof extractedEntryDraft>[2] = { turnIds: x.turns.map((i) => turnIds[i]!) };
  const tag = x.key ? keyTag(msg.subject, x.key) : undefined;
  const holder = tag ? (pending.holders.get(tag) ?? currentHolder(memory, pending, tag)) : undefined;
  if (holder && holder.validFrom < x.at) links.supersedes = holder.id;
  if (holder && holder.validFrom > x.at) links.validTo = holder.validFrom;
  const scope = {
    sessionId: msg.plan.sessionId,
    subject: msg.subject,
    agentId: msg.agentId,
    extractor: msg.plan.extractor ?? "",
  };
  const draft = extractedEntryDraft(x, scope, links);
  try {
    // An extracted draft its category refuses is left out: extraction never fails a call.
    checkDraft(draft);
    // Made from its turns: trusted no more than the least trusted of them (provenance/trust.ts).
    const sources = links.turnIds.map((id) => pending.lookup(id)!.entry);
    const provenance = derivedOrigin(scope.extractor, sources);
    const written = prepare(memory, pending, msg, now, { draft, vector, path: "extracted", provenance });
    if (tag && links.validTo === undefined) pending.holders.set(tag, { id: written.id, validFrom: x.at });
    return written;
  } catch (error) {
    // A statement that may not supersede the one it would (a higher trust's) is left out too.
    if (error instanceof ValidationFailed || error instanceof TrustOutranked) return undefined;
    throw error;
  }
}

/** The live entry about a key (not superseded, not retracted), as this call has left it. */
function currentHolder(memory: TenantMemory, pending: Pending, tag: string) {
  for (const found of memory.entries.scanTag(tag)) {
    const entry = (pending.overlay.get(found.entry.id) ?? found).entry;
    if (entry.expired_at === null && entry.valid_to === null)
      return { id: entry.id, validFrom: Date.parse(entry.valid_from) };
  }
  return undefined;
}

/** Prepares one draft into the call's write set (an identical stored entry is that entry, 200). */
export function prepare(
  memory: TenantMemory,
  pending: Pending,
  msg: Pick<AddConversation, "within" | "createdBy" | "overrides">,
  now: number,
  item: { draft: EntryDraft; vector: Float32Array | undefined; path: string; provenance: Provenance },
): { id: string; status: 200 | 201 } {
  const { draft, vector, path, provenance } = item;
  const options = { lookup: pending.lookup, within: msg.within, provenance, overrides: msg.overrides };
  const prepared = named(path, () => memory.writer.prepare(draft, msg.createdBy, now, options));
  if ("existing" in prepared) return { id: prepared.existing.entry.id, status: 200 };
  for (const s of [prepared.stored, ...prepared.updates]) pending.overlay.set(s.entry.id, s);
  pending.created.push({ prepared, vector });
  return { id: prepared.stored.entry.id, status: 201 };
}

/** A refusal of a turn names its message (`messages/3: …`). */
function named<T>(path: string, step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (!(error instanceof ValidationFailed) || path === "extracted") throw error;
    const errors = (error.errors ?? []).map((e) => ({ ...e, path: `/${path}${e.path}` }));
    throw new ValidationFailed(`${path}: ${error.message}`, errors);
  }
}

function fail(path: string, message: string): never {
  throw new ValidationFailed(`${path.slice(1)}: ${message}`, [{ path, message }]);
}
