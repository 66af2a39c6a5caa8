import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Database, open, type RootDatabase } from "lmdb";
import type { AdminEvent } from "../models/admin-event.ts";
import type { Denial } from "../models/denial.ts";
import type { Role } from "../models/role.ts";
import type { Tenant } from "../models/tenant.ts";
import { guardCommitRejections, observeCommits } from "./storage-faults.ts";
import { StorageGauge, type StorageLimits } from "./storage-gauge.ts";
import { SystemAdminAudit } from "./system/admin-audit.ts";
import type { AuditPage } from "./system/audit-page.ts";
import { SystemDenials } from "./system/denials.ts";
import { SystemReplication } from "./system/replication.ts";
import { SystemRoles } from "./system/roles.ts";
import { committed, SystemRoom } from "./system/room.ts";
import { SYSTEM_TABLES, type SystemGroup, type SystemTablesOf } from "./system/tables.ts";
import { SystemTenants } from "./system/tenants.ts";
import { openTables } from "./tables.ts";

export type { AuditPage } from "./system/audit-page.ts";
export { appliedSeqIn } from "./system/replication.ts";
export { nameKey } from "./system/tenants.ts";

type OpenedSystem = { [G in SystemGroup]: SystemTablesOf<G> };

/**
 * The system environment: tenants, their role libraries, the denial audit log and the admin audit
 * log, each a slice in system/ owning its tables (system/tables.ts). This class opens them and
 * composes the slices; its methods are what callers (the system actor, the tenants feature, the
 * authenticator, cluster mode's system replica) depend on, so they stay one narrow surface while
 * the slices hold the logic. Reads are synchronous LMDB snapshot reads (safe from any caller);
 * writes are serialised by the system actor, which is the only caller of the mutating methods.
 *
 * Each write is plain puts issued in one synchronous run: lmdb-js commits every write of an event
 * turn in one transaction, whole or not at all. (Not its transaction callbacks: in lmdb-js 3.5 the
 * promise of a callback transaction whose commit fails never settles, and the environment takes no
 * write after it; plain puts reject and the next commit goes through.) A write that fails at
 * commit rejects with InsufficientStorage when the storage is full, and the caches stay as the
 * disk is. Past the size ceiling, tenants and roles are refused (507): system/room.ts.
 */
export class SystemStore {
  private readonly root: RootDatabase;
  private readonly room: SystemRoom;
  private readonly tenants: SystemTenants;
  private readonly roles: SystemRoles;
  private readonly denials: SystemDenials;
  private readonly adminAudit: SystemAdminAudit;
  private readonly replication: SystemReplication;

  constructor(dataDir: string, auditLimit: number, limits: StorageLimits = {}) {
    const dir = join(dataDir, "system");
    mkdirSync(dir, { recursive: true });
    guardCommitRejections();
    this.root = open({ path: dir, compression: false });
    observeCommits(this.root);
    this.room = new SystemRoom(
      new StorageGauge(this.root, limits.maxBytes ?? Number.POSITIVE_INFINITY, limits.disk),
    );
    const { tables, byName } = openAll(this.root);
    const meta = tables.meta.meta;
    this.tenants = new SystemTenants(this.root, tables.tenants, meta, this.room);
    this.roles = new SystemRoles(tables.roles, this.room);
    this.denials = new SystemDenials(tables.denials, meta, auditLimit);
    this.adminAudit = new SystemAdminAudit(tables.adminAudit, meta);
    this.replication = new SystemReplication(this.root, meta, byName);
  }

  // Tenants (system/tenants.ts).
  getTenant = (tenantId: string): Tenant | undefined => this.tenants.get(tenantId);
  tenantIdByName = (name: string): string | undefined => this.tenants.idByName(name);
  listTenants = (): Tenant[] => this.tenants.list();
  listTenantsPage = (limit: number, after?: string) => this.tenants.page(limit, after);
  tenantCount = (): number => this.tenants.count();
  createTenant = (tenant: Tenant): Promise<void> => this.tenants.create(tenant);
  setTenantStatus = (tenantId: string, status: Tenant["status"]): Promise<Tenant> =>
    this.tenants.setStatus(tenantId, status);

  /** Removes the tenant, its name, its roles and its denial records (one commit); answers how many of each. */
  async deleteTenant(tenantId: string): Promise<{ roles: number; denials: number }> {
    const tenant = this.tenants.stored(tenantId);
    if (!tenant) return { roles: 0, denials: 0 };
    const roles = this.roles.issueRemovalOf(tenantId);
    const denials = this.denials.issueRemovalOf(tenantId);
    await committed(this.tenants.issueRemoval(tenant));
    this.tenants.forget(tenantId);
    this.roles.forget(tenantId, roles);
    this.denials.forget(tenantId);
    return { roles: roles.length, denials };
  }

  // Roles (system/roles.ts).
  listRoles = (tenantId: string): Role[] => this.roles.list(tenantId);
  getRole = (tenantId: string, name: string): Role | undefined => this.roles.get(tenantId, name);
  putRole = (tenantId: string, role: Role): Promise<boolean> => this.roles.put(tenantId, role);
  deleteRole = (tenantId: string, name: string): Promise<boolean> => this.roles.delete(tenantId, name);

  // The audit logs (system/denials.ts, system/admin-audit.ts).
  recordDenial = (denial: Denial): Promise<unknown> => this.denials.record(denial);
  listDenials = (tenantId: string, limit: number, before?: number): AuditPage<Denial> =>
    this.denials.list(tenantId, limit, before);
  recordAdminEvent = (event: AdminEvent): Promise<unknown> => this.adminAudit.record(event);
  listAdminEvents = (limit: number, before?: number): AuditPage<AdminEvent> =>
    this.adminAudit.list(limit, before);

  // The size ceiling (system/room.ts).
  assertRoom = (): void => this.room.assert();
  leaveRoomToSubmitter = (): void => this.room.leaveToSubmitter();

  // Cluster mode (system/replication.ts).
  appliedSeq = (): number => this.replication.appliedSeq();
  markApplied = (seq: number): Promise<void> => this.replication.markApplied(seq);
  backup = (dir: string): Promise<void> => this.replication.backup(dir);
  replaceWith = (dir: string | undefined): Promise<void> =>
    this.replication.replaceWith(dir, (source) => {
      this.tenants.reset(source);
      this.roles.reset();
      this.denials.reset(source);
      this.adminAudit.reset(source);
    });

  /** Whether the store holds nothing (no tenant, role or audit record). */
  isEmpty(): boolean {
    return [this.tenants, this.roles, this.denials, this.adminAudit].every((slice) => slice.isEmpty());
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
}

/** Every slice's tables, and every table by its name on disk (what a snapshot replaces). */
function openAll(root: RootDatabase): { tables: OpenedSystem; byName: Map<string, Database> } {
  const byName = new Map<string, Database>();
  const tables = {} as Record<SystemGroup, Record<string, Database>>;
  for (const group of Object.keys(SYSTEM_TABLES) as SystemGroup[]) {
    const specs: Record<string, { name: string }> = SYSTEM_TABLES[group];
    const opened: Record<string, Database> = openTables(root, SYSTEM_TABLES[group]);
    for (const [key, spec] of Object.entries(specs)) byName.set(spec.name, opened[key] as Database);
    tables[group] = opened;
  }
  return { tables: tables as unknown as OpenedSystem, byName };
}
