import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Database, open, type RootDatabase } from "lmdb";
import type { Denial } from "../models/denial.ts";
import { BUILTIN_TENANT_ADMIN, type Role, TENANT_ADMIN } from "../models/role.ts";
import type { Tenant } from "../models/tenant.ts";

const AUDIT_SEQ = "audit-seq";

/**
 * The system environment: tenants, their role libraries and the denial audit log.
 * Reads are synchronous LMDB snapshot reads (safe from any caller); writes are serialised by the
 * system actor, which is the only caller of the mutating methods.
 */
export class SystemStore {
  private readonly root: RootDatabase;
  private readonly tenants: Database<Tenant, string>;
  private readonly names: Database<string, string>;
  private readonly roles: Database<Role, [string, string]>;
  private readonly audit: Database<Denial, [string, number]>;
  private readonly meta: Database<number, string>;
  private readonly auditCounts = new Map<string, number>();
  private auditSeq: number;

  constructor(
    dataDir: string,
    private readonly auditLimit: number,
  ) {
    const dir = join(dataDir, "system");
    mkdirSync(dir, { recursive: true });
    this.root = open({ path: dir, compression: false });
    this.tenants = this.root.openDB({ name: "tenants" });
    this.names = this.root.openDB({ name: "tenant-names" });
    this.roles = this.root.openDB({ name: "roles" });
    this.audit = this.root.openDB({ name: "audit" });
    this.meta = this.root.openDB({ name: "meta" });
    // Audit keys carry a global sequence; its high-water mark is kept so a restart never reuses one.
    this.auditSeq = this.meta.get(AUDIT_SEQ) ?? 0;
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

  /** Counted once, then kept by createTenant (`/healthz` is polled often). */
  private knownTenantCount: number | undefined;

  tenantCount(): number {
    this.knownTenantCount ??= this.tenants.getCount();
    return this.knownTenantCount;
  }

  async createTenant(tenant: Tenant): Promise<void> {
    await this.root.transaction(() => {
      this.tenants.put(tenant.tenant_id, tenant);
      this.names.put(nameKey(tenant.name), tenant.tenant_id);
    });
    this.tenantCache.set(tenant.tenant_id, tenant);
    if (this.knownTenantCount !== undefined) this.knownTenantCount++;
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
    const replaced = this.roles.doesExist([tenantId, role.name]);
    await this.roles.put([tenantId, role.name], role);
    this.roleCache.set(`${tenantId}/${role.name}`, role);
    return replaced;
  }

  async deleteRole(tenantId: string, name: string): Promise<boolean> {
    // lmdb's remove() resolves true even for a missing key; the system actor serialises writes.
    if (!this.roles.doesExist([tenantId, name])) return false;
    await this.roles.remove([tenantId, name]);
    // After the commit: a read racing the removal may have cached the role again from LMDB.
    this.roleCache.delete(`${tenantId}/${name}`);
    return true;
  }

  /** Appends a denial; the per-tenant log keeps the newest `auditLimit` records. */
  async recordDenial(denial: Denial): Promise<void> {
    const tenantId = denial.tenant_id;
    // Counted before the write: counting from disk afterwards would include the new record twice.
    const count = this.auditCountOf(tenantId) + 1;
    const seq = ++this.auditSeq;
    await this.root.transaction(() => {
      this.audit.put([tenantId, seq], denial);
      this.meta.put(AUDIT_SEQ, seq);
    });
    this.auditCounts.set(tenantId, count);
    if (count > this.auditLimit) await this.trimAudit(tenantId, count - this.auditLimit);
  }

  listDenials(tenantId: string, limit: number): Denial[] {
    const range = this.audit.getRange({
      start: [tenantId, Number.MAX_SAFE_INTEGER],
      end: [tenantId, 0],
      reverse: true,
      limit,
    });
    return [...range.map(({ value }) => value)];
  }

  private closed = false;

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

  private async trimAudit(tenantId: string, excess: number): Promise<void> {
    const oldest = [
      ...this.audit.getKeys({
        start: [tenantId, 0],
        end: [tenantId, Number.MAX_SAFE_INTEGER],
        limit: excess,
      }),
    ];
    await this.root.transaction(() => {
      for (const key of oldest) this.audit.remove(key);
    });
    this.auditCounts.set(tenantId, this.auditCountOf(tenantId) - oldest.length);
  }
}

/** Tenant names are unique case-insensitively (and after trimming). */
export function nameKey(name: string): string {
  return name.trim().normalize("NFKC").toLocaleLowerCase("en-US");
}
