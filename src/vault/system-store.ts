import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Database, open, type RootDatabase } from "lmdb";
import type { AdminEvent } from "../models/admin-event.ts";
import type { Denial } from "../models/denial.ts";
import { BUILTIN_TENANT_ADMIN, type Role, TENANT_ADMIN } from "../models/role.ts";
import type { Tenant } from "../models/tenant.ts";
import { LogTrim } from "./log-trim.ts";
import { guardCommitRejections, observeCommits, storageFault } from "./storage-faults.ts";
import { StorageGauge, type StorageLimits } from "./storage-gauge.ts";

const AUDIT_SEQ = "audit-seq";
const ADMIN_SEQ = "admin-audit-seq";
/** The admin audit log's name for LogTrim (denial logs are named by their tenant id). */
const ADMIN_LOG = "~admin";
/** Admin actions kept (newest); they are rare next to denials. */
const ADMIN_AUDIT_LIMIT = 100_000;
const NAME_KEY_META = "name-key-version";
/** Cluster mode: the last `MR_SYSTEM` command this store applied (docs/cluster.md). */
const APPLIED_SEQ = "system-applied-seq";
/** The store's named databases, as a snapshot copies them. */
const DATABASES = ["tenants", "tenant-names", "roles", "audit", "admin-audit", "meta"] as const;

/** One page of an audit log, newest first; `nextBefore` continues it. */
export interface AuditPage<T> {
  items: T[];
  nextBefore: number | undefined;
}

/**
 * The system environment: tenants, their role libraries, the denial audit log and the admin audit log.
 * Reads are synchronous LMDB snapshot reads (safe from any caller); writes are serialised by the
 * system actor, which is the only caller of the mutating methods.
 *
 * Each write is plain puts issued in one synchronous run: lmdb-js commits every write of an event
 * turn in one transaction, whole or not at all. (Not its transaction callbacks: in lmdb-js 3.5 the
 * promise of a callback transaction whose commit fails never settles, and the environment takes no
 * write after it; plain puts reject and the next commit goes through.) A write that fails at
 * commit rejects with InsufficientStorage when the storage is full, and the caches stay as the
 * disk is. Past the size ceiling, tenants and roles are refused (507); the audit logs, which are
 * bounded, and changes that free space or stop a tenant (status, deletion) are not.
 */
export class SystemStore {
  private readonly root: RootDatabase;
  private readonly dbs: Record<(typeof DATABASES)[number], Database>;
  private readonly tenants: Database<Tenant, string>;
  private readonly names: Database<string, string>;
  private readonly roles: Database<Role, [string, string]>;
  private readonly audit: Database<Denial, [string, number]>;
  private readonly adminAudit: Database<AdminEvent, number>;
  private readonly meta: Database<number, string>;
  private adminSeq: number;
  private adminCount: number;
  private readonly auditCounts = new Map<string, number>();
  private auditSeq: number;
  private readonly gauge: StorageGauge;
  private readonly trims = new LogTrim();

  constructor(
    dataDir: string,
    private readonly auditLimit: number,
    limits: StorageLimits = {},
  ) {
    const dir = join(dataDir, "system");
    mkdirSync(dir, { recursive: true });
    guardCommitRejections();
    this.root = open({ path: dir, compression: false });
    observeCommits(this.root);
    this.gauge = new StorageGauge(this.root, limits.maxBytes ?? Number.POSITIVE_INFINITY, limits.disk);
    this.tenants = this.root.openDB({ name: "tenants" });
    this.names = this.root.openDB({ name: "tenant-names" });
    this.roles = this.root.openDB({ name: "roles" });
    this.audit = this.root.openDB({ name: "audit" });
    this.adminAudit = this.root.openDB({ name: "admin-audit" });
    this.meta = this.root.openDB({ name: "meta" });
    this.dbs = {
      tenants: this.tenants,
      "tenant-names": this.names,
      roles: this.roles,
      audit: this.audit,
      "admin-audit": this.adminAudit,
      meta: this.meta,
    };
    this.adminSeq = this.meta.get(ADMIN_SEQ) ?? 0;
    this.adminCount = this.adminAudit.getCount();
    // Audit keys carry a global sequence; its high-water mark is kept so a restart never reuses one.
    this.auditSeq = this.meta.get(AUDIT_SEQ) ?? 0;
    this.migrateNameKeys();
  }

  /** A store written with an older nameKey gets its name index rebuilt, so uniqueness holds for old names too. */
  private migrateNameKeys(): void {
    if ((this.meta.get(NAME_KEY_META) ?? 1) >= NAME_KEY_VERSION) return;
    this.root.transactionSync(() => {
      this.names.clearSync();
      for (const { value } of this.tenants.getRange()) this.names.put(nameKey(value.name), value.tenant_id);
      this.meta.put(NAME_KEY_META, NAME_KEY_VERSION);
    });
  }

  /**
   * Tenants and roles are read on every authenticated request, so they are cached in memory. The
   * cache stays coherent because this store is the only writer of the system environment.
   */
  private readonly tenantCache = new Map<string, Tenant | undefined>();
  private readonly roleCache = new Map<string, Role | undefined>();

  getTenant(tenantId: string): Tenant | undefined {
    if (this.tenantCache.has(tenantId)) return this.tenantCache.get(tenantId);
    const tenant = this.tenants.get(tenantId);
    // Only hits are cached: a flood of unknown ids must not grow memory.
    if (tenant) this.tenantCache.set(tenantId, tenant);
    return tenant;
  }

  tenantIdByName(name: string): string | undefined {
    return this.names.get(nameKey(name));
  }

  listTenants(): Tenant[] {
    return [...this.tenants.getRange().map(({ value }) => value)];
  }

  /** Tenants in id order (ULIDs: creation order) after the tenant id `after`, one page of `limit`. */
  listTenantsPage(limit: number, after?: string): { tenants: Tenant[]; more: boolean } {
    const start = after === undefined ? undefined : `${after}\u0000`;
    const rows = [...this.tenants.getRange({ start, limit: limit + 1 }).map(({ value }) => value)];
    return { tenants: rows.slice(0, limit), more: rows.length > limit };
  }

  /** Counted once, then kept by createTenant (`/healthz` is polled often). */
  private knownTenantCount: number | undefined;

  tenantCount(): number {
    this.knownTenantCount ??= this.tenants.getCount();
    return this.knownTenantCount;
  }

  /** Throws InsufficientStorage when the system store is at its size ceiling. */
  assertRoom(): void {
    this.gauge.assertRoom("the system store");
  }

  /** False once a replica checks the ceiling where commands are submitted (leaveRoomToSubmitter). */
  private mutatorsCheckRoom = true;

  /**
   * Cluster mode: the ceiling is checked by the node submitting a command, before it is published;
   * applying a command every node accepted must not depend on this node's own fill level, or the
   * replicas would diverge (a refused command is still marked applied).
   */
  leaveRoomToSubmitter(): void {
    this.mutatorsCheckRoom = false;
  }

  private checkRoom(): void {
    if (this.mutatorsCheckRoom) this.assertRoom();
  }

  /**
   * The commit of the puts just issued (every put of a turn resolves with the same commit, so the
   * last one's promise stands for all): a storage fault is a 507.
   */
  private committed(last: Promise<unknown>): Promise<void> {
    return last.then(() => undefined, storageFault);
  }

  async createTenant(tenant: Tenant): Promise<void> {
    this.checkRoom();
    this.tenants.put(tenant.tenant_id, tenant);
    await this.committed(this.names.put(nameKey(tenant.name), tenant.tenant_id));
    this.tenantCache.set(tenant.tenant_id, tenant);
    if (this.knownTenantCount !== undefined) this.knownTenantCount++;
  }

  /** Suspends or resumes a tenant. */
  async setTenantStatus(tenantId: string, status: Tenant["status"]): Promise<Tenant> {
    const tenant = this.tenants.get(tenantId);
    if (!tenant) throw new Error(`no tenant ${tenantId}`);
    const updated: Tenant = { ...tenant, status };
    await this.committed(this.tenants.put(tenantId, updated));
    this.tenantCache.set(tenantId, updated);
    return updated;
  }

  /** Removes the tenant, its name, its roles and its denial records; answers how many of each. */
  async deleteTenant(tenantId: string): Promise<{ roles: number; denials: number }> {
    const tenant = this.tenants.get(tenantId);
    if (!tenant) return { roles: 0, denials: 0 };
    const roleKeys = [...this.roles.getKeys({ start: [tenantId, ""], end: [tenantId, "\uffff"] })];
    const denialKeys = [
      ...this.audit.getKeys({ start: [tenantId, 0], end: [tenantId, Number.MAX_SAFE_INTEGER] }),
    ];
    for (const key of roleKeys) this.roles.remove(key);
    for (const key of denialKeys) this.audit.remove(key);
    this.names.remove(nameKey(tenant.name));
    await this.committed(this.tenants.remove(tenantId));
    this.tenantCache.delete(tenantId);
    for (const [, name] of roleKeys as Array<[string, string]>) this.roleCache.delete(`${tenantId}/${name}`);
    this.auditCounts.delete(tenantId);
    if (this.knownTenantCount !== undefined) this.knownTenantCount--;
    return { roles: roleKeys.length, denials: denialKeys.length };
  }

  /**
   * Appends an admin action, committed before the action is answered; the log keeps the newest
   * ADMIN_AUDIT_LIMIT (trimmed in the same commit, as for denials).
   */
  recordAdminEvent(event: AdminEvent): Promise<unknown> {
    const seq = ++this.adminSeq;
    this.adminCount++;
    const excess = Math.max(0, this.adminCount - ADMIN_AUDIT_LIMIT);
    this.adminCount -= excess;
    const oldest = this.trims.oldest(ADMIN_LOG, this.adminAudit.getKeys({ start: 0, end: seq }), excess);
    for (const key of oldest) this.adminAudit.remove(key);
    this.adminAudit.put(seq, event);
    const committed = this.committed(this.meta.put(ADMIN_SEQ, seq));
    this.trims.track(ADMIN_LOG, seq, oldest, committed);
    return committed.catch((error) => {
      // Nothing of it is on disk: the count is read from the disk again (a lost sequence is a gap).
      this.adminCount = this.adminAudit.getCount();
      throw error;
    });
  }

  /** Admin actions newest first; `before` is the sequence of the last record of the previous page. */
  listAdminEvents(limit: number, before = Number.MAX_SAFE_INTEGER): AuditPage<AdminEvent> {
    const rows = [
      ...this.adminAudit.getRange({ start: before - 1, end: 0, reverse: true, limit: limit + 1 }),
    ];
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map(({ value }) => value),
      nextBefore: rows.length > limit && last ? (last.key as number) : undefined,
    };
  }

  /** The tenant's library: the built-in `tenant_admin` first, then stored roles by name. */
  listRoles(tenantId: string): Role[] {
    const stored = this.roles
      .getRange({ start: [tenantId, ""], end: [tenantId, "\uffff"] })
      .map(({ value }) => value);
    return [BUILTIN_TENANT_ADMIN, ...stored];
  }

  getRole(tenantId: string, name: string): Role | undefined {
    if (name === TENANT_ADMIN) return BUILTIN_TENANT_ADMIN;
    const key = `${tenantId}/${name}`;
    if (this.roleCache.has(key)) return this.roleCache.get(key);
    const role = this.roles.get([tenantId, name]);
    if (role) this.roleCache.set(key, role);
    return role;
  }

  /** Stores a role; true when it replaced one of the same name. */
  async putRole(tenantId: string, role: Role): Promise<boolean> {
    this.checkRoom();
    const replaced = this.roles.doesExist([tenantId, role.name]);
    await this.committed(this.roles.put([tenantId, role.name], role));
    this.roleCache.set(`${tenantId}/${role.name}`, role);
    return replaced;
  }

  async deleteRole(tenantId: string, name: string): Promise<boolean> {
    // lmdb's remove() resolves true even for a missing key; the system actor serialises writes.
    if (!this.roles.doesExist([tenantId, name])) return false;
    await this.committed(this.roles.remove([tenantId, name]));
    // After the commit: a read racing the removal may have cached the role again from LMDB.
    this.roleCache.delete(`${tenantId}/${name}`);
    return true;
  }

  /**
   * Appends a denial; the per-tenant log keeps the newest `auditLimit` records. The count is kept in
   * memory, and the trim knows the records of earlier calls not yet committed (LogTrim): so calls
   * need not wait for each other's commits (the system actor calls this serially and lets commits
   * group). Resolves once this record is durable.
   */
  recordDenial(denial: Denial): Promise<unknown> {
    const tenantId = denial.tenant_id;
    const seq = ++this.auditSeq;
    const count = this.auditCountOf(tenantId) + 1;
    const excess = Math.max(0, count - this.auditLimit);
    this.auditCounts.set(tenantId, count - excess);
    const stored = this.audit.getKeys({ start: [tenantId, 0], end: [tenantId, seq] });
    const oldest = this.trims.oldest(
      tenantId,
      stored.map((key) => key[1]),
      excess,
    );
    for (const old of oldest) this.audit.remove([tenantId, old]);
    this.audit.put([tenantId, seq], denial);
    const committed = this.committed(this.meta.put(AUDIT_SEQ, seq));
    this.trims.track(tenantId, seq, oldest, committed);
    return committed.catch((error) => {
      // Nothing of it is on disk (and the refusal it stood for is not sent as a 403): counted again.
      this.auditCounts.delete(tenantId);
      throw error;
    });
  }

  /** Newest first; `before` is the sequence of the last record of the previous page. */
  listDenials(tenantId: string, limit: number, before = Number.MAX_SAFE_INTEGER): AuditPage<Denial> {
    const range = this.audit.getRange({
      start: [tenantId, before - 1],
      end: [tenantId, 0],
      reverse: true,
      limit: limit + 1,
    });
    const rows = [...range];
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map(({ value }) => value),
      nextBefore: rows.length > limit && last ? (last.key as [string, number])[1] : undefined,
    };
  }

  /** Cluster mode: the sequence of the last `MR_SYSTEM` command applied here (0: none). */
  appliedSeq(): number {
    return this.meta.get(APPLIED_SEQ) ?? 0;
  }

  /** Whether the store holds nothing (no tenant, role or audit record). */
  isEmpty(): boolean {
    return [this.tenants, this.roles, this.audit, this.adminAudit].every((db) => db.getCount() === 0);
  }

  /**
   * Records that the stream's command `seq` is applied. Issued in the same synchronous run as the
   * command's own puts (every mutator issues its puts before its first await), it is committed in
   * their transaction: lmdb-js batches all writes of an event turn into one (`eventTurnBatching`),
   * so after a crash the store holds a command's effect exactly when it holds its sequence.
   */
  markApplied(seq: number): Promise<void> {
    return this.committed(this.meta.put(APPLIED_SEQ, seq));
  }

  /** A consistent, compacted copy of the whole store as `<dir>/data.mdb` (LMDB's copy, at one read transaction). */
  async backup(dir: string): Promise<void> {
    mkdirSync(dir, { recursive: true });
    await this.root.backup(dir, true);
  }

  /**
   * Replaces everything the store holds by the content of the store in `dir` (a snapshot: a
   * `backup`), or by nothing: every database is cleared and refilled in one synchronous run, so in
   * one transaction (readers see the old content until it commits, then the new one). The caller
   * must not write meanwhile (cluster mode: the system replica, the only writer, waits for it).
   */
  async replaceWith(dir: string | undefined): Promise<void> {
    const source = dir === undefined ? undefined : open({ path: dir, compression: false, readOnly: true });
    try {
      let last: Promise<unknown> = Promise.resolve();
      for (const name of DATABASES) {
        const target = this.dbs[name];
        last = target.clearAsync();
        if (!source) continue;
        for (const { key, value } of source.openDB({ name }).getRange()) last = target.put(key, value);
      }
      const counts = source ? this.countsOf(source) : { tenants: 0, admin: 0, adminSeq: 0, auditSeq: 0 };
      this.forgetCaches(counts);
      await this.committed(last);
      // Reads between the clear and its commit may have cached the old content again.
      this.forgetCaches(counts);
    } finally {
      await source?.close();
    }
  }

  /** The in-memory counters of the content in `source`, read there (the puts are not committed yet). */
  private countsOf(source: RootDatabase) {
    const meta = source.openDB<number, string>({ name: "meta" });
    return {
      tenants: source.openDB({ name: "tenants" }).getCount(),
      admin: source.openDB({ name: "admin-audit" }).getCount(),
      adminSeq: meta.get(ADMIN_SEQ) ?? 0,
      auditSeq: meta.get(AUDIT_SEQ) ?? 0,
    };
  }

  private forgetCaches(counts: { tenants: number; admin: number; adminSeq: number; auditSeq: number }): void {
    this.tenantCache.clear();
    this.roleCache.clear();
    this.auditCounts.clear();
    this.knownTenantCount = counts.tenants;
    this.adminCount = counts.admin;
    this.adminSeq = counts.adminSeq;
    this.auditSeq = counts.auditSeq;
  }

  private closed = false;

  /** Until `close`: what `GET /readyz` checks. */
  get open(): boolean {
    return !this.closed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.root.close();
  }

  private auditCountOf(tenantId: string): number {
    let count = this.auditCounts.get(tenantId);
    if (count === undefined) {
      count = this.audit.getKeysCount({ start: [tenantId, 0], end: [tenantId, Number.MAX_SAFE_INTEGER] });
      this.auditCounts.set(tenantId, count);
    }
    return count;
  }
}

/** The applied `MR_SYSTEM` sequence of the store copy in `dir` (a `backup`), read without writing to it. */
export async function appliedSeqIn(dir: string): Promise<number> {
  const copy = open({ path: dir, compression: false, readOnly: true });
  try {
    return copy.openDB<number, string>({ name: "meta" }).get(APPLIED_SEQ) ?? 0;
  } finally {
    await copy.close();
  }
}

/**
 * Tenant names are unique after trimming, NFKC normalisation and case folding ("ﬁ" = "fi",
 * "Straße" = "STRASSE", "Σ" = "ς" = "σ"). JavaScript has no case folding of its own: upper- then
 * lower-casing gives full case folding for every name a person would type.
 */
export function nameKey(name: string): string {
  const folded = name.trim().normalize("NFKC").toUpperCase().toLowerCase();
  return folded.normalize("NFKC");
}

/** Bumped when nameKey changes: the name index is rebuilt from the tenants on open. */
const NAME_KEY_VERSION = 2;
