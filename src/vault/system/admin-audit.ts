import type { RootDatabase } from "lmdb";
import type { AdminEvent } from "../../models/admin-event.ts";
import { LogTrim } from "../log-trim.ts";
import { type AuditPage, pageOf } from "./audit-page.ts";
import { committed } from "./room.ts";
import { META_KEYS, type MetaTable, SYSTEM_TABLES, type SystemTablesOf } from "./tables.ts";

/** The admin audit log's name for LogTrim (denial logs are named by their tenant id). */
const ADMIN_LOG = "~admin";
/** Admin actions kept (newest); they are rare next to denials. */
const ADMIN_AUDIT_LIMIT = 100_000;

/** The admin audit log: every admin action, the newest ADMIN_AUDIT_LIMIT kept. */
export class SystemAdminAudit {
  private seq: number;
  private count: number;
  private readonly trims = new LogTrim();

  constructor(
    private readonly db: SystemTablesOf<"adminAudit">,
    private readonly meta: MetaTable,
  ) {
    this.seq = this.meta.get(META_KEYS.adminSeq) ?? 0;
    this.count = this.db.events.getCount();
  }

  /**
   * Appends an admin action, committed before the action is answered; the log keeps the newest
   * ADMIN_AUDIT_LIMIT (trimmed in the same commit, as for denials).
   */
  record(event: AdminEvent): Promise<unknown> {
    const seq = ++this.seq;
    this.count++;
    const excess = Math.max(0, this.count - ADMIN_AUDIT_LIMIT);
    this.count -= excess;
    const oldest = this.trims.oldest(ADMIN_LOG, this.db.events.getKeys({ start: 0, end: seq }), excess);
    for (const key of oldest) this.db.events.remove(key);
    this.db.events.put(seq, event);
    const done = committed(this.meta.put(META_KEYS.adminSeq, seq));
    this.trims.track(ADMIN_LOG, seq, oldest, done);
    return done.catch((error) => {
      // Nothing of it is on disk: the count is read from the disk again (a lost sequence is a gap).
      this.count = this.db.events.getCount();
      throw error;
    });
  }

  /** Admin actions newest first; `before` is the sequence of the last record of the previous page. */
  list(limit: number, before = Number.MAX_SAFE_INTEGER): AuditPage<AdminEvent> {
    const rows = [...this.db.events.getRange({ start: before - 1, end: 0, reverse: true, limit: limit + 1 })];
    return pageOf(rows, limit, (key) => key);
  }

  isEmpty(): boolean {
    return this.db.events.getCount() === 0;
  }

  /** The content was replaced by that of `source` (a snapshot), or by nothing. */
  reset(source: RootDatabase | undefined): void {
    this.count = source?.openDB({ name: SYSTEM_TABLES.adminAudit.events.name }).getCount() ?? 0;
    this.seq =
      source?.openDB<number, string>({ name: SYSTEM_TABLES.meta.meta.name }).get(META_KEYS.adminSeq) ?? 0;
  }
}
