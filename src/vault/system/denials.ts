import type { RootDatabase } from "lmdb";
import type { Denial } from "../../models/denial.ts";
import { LogTrim } from "../log-trim.ts";
import { type AuditPage, pageOf } from "./audit-page.ts";
import { committed } from "./room.ts";
import { META_KEYS, type MetaTable, SYSTEM_TABLES, type SystemTablesOf } from "./tables.ts";

/**
 * The denial audit log: per tenant, the newest `limit` refused requests. Keys carry a global
 * sequence; its high-water mark is kept in meta so a restart never reuses one.
 */
export class SystemDenials {
  private seq: number;
  /** Per tenant, its records on disk and in flight (read once, then kept). */
  private readonly counts = new Map<string, number>();
  private readonly trims = new LogTrim();

  constructor(
    private readonly db: SystemTablesOf<"denials">,
    private readonly meta: MetaTable,
    private readonly limit: number,
  ) {
    this.seq = this.meta.get(META_KEYS.auditSeq) ?? 0;
  }

  /**
   * Appends a denial; the per-tenant log keeps the newest `limit` records. The count is kept in
   * memory, and the trim knows the records of earlier calls not yet committed (LogTrim): so calls
   * need not wait for each other's commits (the system actor calls this serially and lets commits
   * group). Resolves once this record is durable. Not refused past the ceiling: the log is bounded.
   */
  record(denial: Denial): Promise<unknown> {
    const tenantId = denial.tenant_id;
    const seq = ++this.seq;
    const count = this.countOf(tenantId) + 1;
    const excess = Math.max(0, count - this.limit);
    this.counts.set(tenantId, count - excess);
    const stored = this.db.denials.getKeys({ start: [tenantId, 0], end: [tenantId, seq] });
    const oldest = this.trims.oldest(
      tenantId,
      stored.map((key) => key[1]),
      excess,
    );
    for (const old of oldest) this.db.denials.remove([tenantId, old]);
    this.db.denials.put([tenantId, seq], denial);
    const done = committed(this.meta.put(META_KEYS.auditSeq, seq));
    this.trims.track(tenantId, seq, oldest, done);
    return done.catch((error) => {
      // Nothing of it is on disk (and the refusal it stood for is not sent as a 403): counted again.
      this.counts.delete(tenantId);
      throw error;
    });
  }

  /** Newest first; `before` is the sequence of the last record of the previous page. */
  list(tenantId: string, limit: number, before = Number.MAX_SAFE_INTEGER): AuditPage<Denial> {
    const range = this.db.denials.getRange({
      start: [tenantId, before - 1],
      end: [tenantId, 0],
      reverse: true,
      limit: limit + 1,
    });
    return pageOf([...range], limit, (key) => key[1]);
  }

  /** Issues the removal of the tenant's records (a tenant deletion); answers how many. Then `forget`. */
  issueRemovalOf(tenantId: string): number {
    const keys = [...this.db.denials.getKeys(ofTenant(tenantId))];
    for (const key of keys) this.db.denials.remove(key);
    return keys.length;
  }

  forget(tenantId: string): void {
    this.counts.delete(tenantId);
  }

  isEmpty(): boolean {
    return this.db.denials.getCount() === 0;
  }

  /** The content was replaced by that of `source` (a snapshot), or by nothing. */
  reset(source: RootDatabase | undefined): void {
    this.counts.clear();
    this.seq =
      source?.openDB<number, string>({ name: SYSTEM_TABLES.meta.meta.name }).get(META_KEYS.auditSeq) ?? 0;
  }

  private countOf(tenantId: string): number {
    let count = this.counts.get(tenantId);
    if (count === undefined) {
      count = this.db.denials.getKeysCount(ofTenant(tenantId));
      this.counts.set(tenantId, count);
    }
    return count;
  }
}

function ofTenant(tenantId: string): { start: [string, number]; end: [string, number] } {
  return { start: [tenantId, 0], end: [tenantId, Number.MAX_SAFE_INTEGER] };
}
