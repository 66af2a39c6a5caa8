/**
 * What the mail watch remembers between expansions: the history high-water mark, the threads
 * already seen (a reply is told from a new conversation by them) and the recent notification ids
 * (a redelivery is recognised by them). The mark moves in memory before the tenant commits it, so
 * each expansion keeps what it started from until the tenant says whether its commit went through.
 */
import type { HistoryRecord, MessageMeta } from "../../../src/sources/mail/api.ts";

/** Threads remembered to tell a reply from a new conversation; the oldest are forgotten first. */
export const MAX_SEEN_THREADS = 2000;
/** Notification ids remembered to recognise a redelivery. */
export const MAX_RECENT_NOTIFICATIONS = 200;
/** Expansions awaiting their commit's outcome, at most (older ones are taken as settled). */
const MAX_UNSETTLED = 64;

/** The in-memory expansion state a refused commit restores. */
interface ExpansionState {
  mark: string | undefined;
  recent: string[];
  threads: string[];
}

export class ExpansionMemory {
  /** The authoritative high-water mark: ahead of the stored one while its commit is in flight. */
  mark: string | undefined;
  private threads: string[] = [];
  private threadSet = new Set<string>();
  private recent: string[] = [];
  /** What each expansion whose commit is not yet settled moved from, oldest first. */
  private unsettled: Array<{ eventId: string; before: ExpansionState }> = [];
  /** Snapshots may commit out of order (two notifications in flight); the sequence orders them. */
  private snapshotSeq = 0;

  /** The stored state, read once; a mark already moved in memory is newer and kept. */
  restore(stored: { mark: unknown; threads: unknown; recent: unknown }): void {
    this.mark ??= typeof stored.mark === "string" ? stored.mark : undefined;
    this.threads = stringList(stored.threads).slice(-MAX_SEEN_THREADS);
    this.threadSet = new Set(this.threads);
    this.recent = stringList(stored.recent).slice(-MAX_RECENT_NOTIFICATIONS);
  }

  get seenThreads(): Set<string> {
    return this.threadSet;
  }

  /** Copies of the lists, as they are committed. */
  lists(): { threads: string[]; recent: string[] } {
    return { threads: [...this.threads], recent: [...this.recent] };
  }

  isRecent(eventId: string): boolean {
    return this.recent.includes(eventId);
  }

  /** Keeps the state an expansion starts from until the tenant says whether it committed. */
  remember(eventId: string): void {
    this.unsettled.push({
      eventId,
      before: { mark: this.mark, recent: [...this.recent], threads: [...this.threads] },
    });
    if (this.unsettled.length > MAX_UNSETTLED) this.unsettled.shift();
  }

  /**
   * A refused commit puts the state back to where that expansion started; expansions after it
   * started from its advance, so they are undone with it (their notifications expand again when
   * redelivered: a repeat, never a loss). A committed one is forgotten. True when it was undone.
   */
  settle(eventId: string, committed: boolean): boolean {
    const at = this.unsettled.findIndex((u) => u.eventId === eventId);
    if (at < 0) return false;
    if (committed) {
      this.unsettled.splice(at, 1);
      return false;
    }
    const { before } = this.unsettled[at]!;
    this.unsettled.length = at;
    this.mark = before.mark;
    this.recent = before.recent;
    this.threads = before.threads;
    this.threadSet = new Set(before.threads);
    return true;
  }

  advance(mark: string, eventId: string): void {
    this.mark = mark;
    this.recent.push(eventId);
    if (this.recent.length > MAX_RECENT_NOTIFICATIONS)
      this.recent.splice(0, this.recent.length - MAX_RECENT_NOTIFICATIONS);
  }

  /** The threads of the messages read, so later messages in them count as replies. */
  rememberThreads(history: HistoryRecord[], messages: Map<string, MessageMeta>): void {
    for (const record of history) {
      for (const item of record?.messagesAdded ?? []) {
        const ref = item?.message;
        if (
          !ref ||
          typeof ref.threadId !== "string" ||
          !messages.has(ref.id) ||
          this.threadSet.has(ref.threadId)
        )
          continue;
        this.threadSet.add(ref.threadId);
        this.threads.push(ref.threadId);
      }
    }
    while (this.threads.length > MAX_SEEN_THREADS) this.threadSet.delete(this.threads.shift()!);
  }

  nextSnapshotSeq(now: number): number {
    this.snapshotSeq = Math.max(this.snapshotSeq + 1, now);
    return this.snapshotSeq;
  }
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
