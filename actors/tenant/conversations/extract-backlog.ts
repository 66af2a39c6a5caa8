/**
 * The tenant's queue of model extraction jobs (src/conversations/model/model-extraction.ts), kept
 * in the vault's connector-state table under `extract:<time>:<part>:<first turn id>`: a conversation call
 * with new turns writes its job's record in the same write set as the turns, and the entries the
 * model's answer brings are written with the record's removal, in one transaction. A restart finds
 * the records as committed and resumes; a job in flight at a crash is simply asked again (its
 * entries are written once: the record goes with them).
 */
import type {
  ExtractJob,
  ExtractQueue,
  ModelExtraction,
} from "../../../src/conversations/model/model-extraction.ts";
import type { ModelCandidate, ModelTurn } from "../../../src/conversations/model/prompt.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import type { TenantMemory } from "../memory/memory.ts";

export const EXTRACT_PREFIX = "extract:";

/** A job's queue record: the call's new turns and the scope its entries are written in. */
export interface ExtractRecord {
  turn_ids: string[];
  session_id: string;
  subject?: string;
  agent_id?: string;
  created_by: string;
}

/** How the backlog reaches its own actor (the answers are written between the actor's messages). */
export interface ExtractAsks {
  write(
    key: string,
    turnIds: string[],
    candidates: ModelCandidate[],
  ): Promise<{ stored: number; dropped: number }>;
  remove(key: string): Promise<unknown>;
}

/** The record's key: ordered by the call's time and the part of the call, unique by its first turn. */
export const extractKey = (now: number, part: number, firstTurnId: string) =>
  `${EXTRACT_PREFIX}${String(now).padStart(15, "0")}:${String(part).padStart(4, "0")}:${firstTurnId}`;

/**
 * Turns per job: a long transcript is asked about in parts, each a prompt a model's context takes
 * (a statement spanning two parts is seen by neither as one; the rules extractor reads each turn alone).
 */
export const TURNS_PER_JOB = 50;

export class ExtractBacklog implements ExtractQueue {
  /** Committed records, oldest first. */
  private readonly jobs = new Map<string, ExtractRecord>();
  private readonly handedOut = new Set<string>();
  private readonly detach: () => void;
  private closed = false;

  constructor(
    private readonly tenantId: string,
    vault: TenantVault,
    private readonly memory: TenantMemory,
    private readonly extraction: ModelExtraction,
    private readonly asks: ExtractAsks,
  ) {
    const state = vault.tablesOf("ingest").connectorState;
    for (const { key, value } of state.getRange({ start: EXTRACT_PREFIX, end: "extract;" }))
      this.jobs.set(String(key), value as ExtractRecord);
    this.detach = extraction.attach(tenantId, this);
  }

  get model(): string {
    return this.extraction.model;
  }

  /** The model extractor as this tenant's health reports it. */
  state() {
    return this.extraction.stateOf(this.tenantId);
  }

  record(key: string): ExtractRecord | undefined {
    return this.jobs.get(key);
  }

  /** A call's record, taken once its write set is committed. */
  queued(key: string, record: ExtractRecord, committed: Promise<void>): void {
    committed.then(
      () => {
        if (this.closed) return;
        this.jobs.set(key, record);
        this.extraction.wake(this.tenantId);
      },
      () => undefined,
    );
  }

  /** The record is removed (committed): the job is done. */
  settled(key: string): void {
    this.jobs.delete(key);
    this.handedOut.delete(key);
  }

  take(): ExtractJob | undefined {
    for (const [key, record] of this.jobs) {
      if (this.handedOut.has(key)) continue;
      this.handedOut.add(key);
      return { key, turns: this.turnsOf(record) };
    }
    return undefined;
  }

  extracted(job: ExtractJob, candidates: ModelCandidate[]) {
    return this.asks.write(
      job.key,
      job.turns.map((t) => t.id),
      candidates,
    );
  }

  async abandon(job: ExtractJob): Promise<void> {
    await this.asks.remove(job.key);
  }

  failed(job: ExtractJob): void {
    this.handedOut.delete(job.key);
  }

  pending(): number {
    return this.jobs.size;
  }

  close(): void {
    this.closed = true;
    this.detach();
  }

  /** The record's turns still stored (an erased one is left out), as the model reads them. */
  private turnsOf(record: ExtractRecord): ModelTurn[] {
    const turns: ModelTurn[] = [];
    for (const id of record.turn_ids) {
      const entry = this.memory.entries.get(id)?.entry;
      if (!entry || entry.expired_at !== null) continue;
      const turn = (entry.data as { turn?: { speaker?: string } } | undefined)?.turn;
      const speaker = turn?.speaker ?? "";
      const prefix = `${speaker}: `;
      const content =
        speaker && entry.content.startsWith(prefix) ? entry.content.slice(prefix.length) : entry.content;
      turns.push({ id, speaker, content, at: Date.parse(entry.valid_from) });
    }
    return turns;
  }
}

/** A call's jobs: its new turns (none: no job) in parts, and the scope their entries are written in. */
export function modelJobs(
  msg: { plan: { sessionId: string }; subject?: string; agentId?: string; createdBy: string },
  turnIds: string[],
  fresh: Set<number>,
  now: number,
): Array<{ key: string; record: ExtractRecord }> {
  const ids = turnIds.filter((_, i) => fresh.has(i));
  const jobs: Array<{ key: string; record: ExtractRecord }> = [];
  for (let start = 0; start < ids.length; start += TURNS_PER_JOB) {
    const part = ids.slice(start, start + TURNS_PER_JOB);
    const record: ExtractRecord = {
      turn_ids: part,
      session_id: msg.plan.sessionId,
      created_by: msg.createdBy,
    };
    if (msg.subject !== undefined) record.subject = msg.subject;
    if (msg.agentId !== undefined) record.agent_id = msg.agentId;
    jobs.push({ key: extractKey(now, jobs.length, part[0]!), record });
  }
  return jobs;
}
