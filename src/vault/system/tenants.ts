import type { RootDatabase } from "lmdb";
import type { Tenant } from "../../models/tenant.ts";
import { committed, type SystemRoom } from "./room.ts";
import { META_KEYS, type MetaTable, SYSTEM_TABLES, type SystemTablesOf } from "./tables.ts";

/** Bumped when nameKey changes: the name index is rebuilt from the tenants on open. */
const NAME_KEY_VERSION = 2;

/**
 * The system store's tenants and their unique names. Tenants are read on every authenticated
 * request, so they are cached in memory; the cache stays coherent because the system store is
 * the only writer of the system environment.
 */
export class SystemTenants {
  private readonly cache = new Map<string, Tenant | undefined>();
  /** Counted once, then kept by create and remove (`/healthz` is polled often). */
  private knownCount: number | undefined;

  constructor(
    private readonly root: RootDatabase,
    private readonly db: SystemTablesOf<"tenants">,
    private readonly meta: MetaTable,
    private readonly room: SystemRoom,
  ) {
    this.migrateNameKeys();
  }

  /** A store written with an older nameKey gets its name index rebuilt, so uniqueness holds for old names too. */
  private migrateNameKeys(): void {
    if ((this.meta.get(META_KEYS.nameKeyVersion) ?? 1) >= NAME_KEY_VERSION) return;
    this.root.transactionSync(() => {
      this.db.names.clearSync();
      for (const { value } of this.db.tenants.getRange())
        this.db.names.put(nameKey(value.name), value.tenant_id);
      this.meta.put(META_KEYS.nameKeyVersion, NAME_KEY_VERSION);
    });
  }

  get(tenantId: string): Tenant | undefined {
    if (this.cache.has(tenantId)) return this.cache.get(tenantId);
    const tenant = this.db.tenants.get(tenantId);
    // Only hits are cached: a flood of unknown ids must not grow memory.
    if (tenant) this.cache.set(tenantId, tenant);
    return tenant;
  }

  idByName(name: string): string | undefined {
    return this.db.names.get(nameKey(name));
  }

  list(): Tenant[] {
    return [...this.db.tenants.getRange().map(({ value }) => value)];
  }

  /** Tenants in id order (ULIDs: creation order) after the tenant id `after`, one page of `limit`. */
  page(limit: number, after?: string): { tenants: Tenant[]; more: boolean } {
    const start = after === undefined ? undefined : `${after}\u0000`;
    const rows = [...this.db.tenants.getRange({ start, limit: limit + 1 }).map(({ value }) => value)];
    return { tenants: rows.slice(0, limit), more: rows.length > limit };
  }

  count(): number {
    this.knownCount ??= this.db.tenants.getCount();
    return this.knownCount;
  }

  isEmpty(): boolean {
    return this.db.tenants.getCount() === 0;
  }

  async create(tenant: Tenant): Promise<void> {
    this.room.check();
    this.db.tenants.put(tenant.tenant_id, tenant);
    await committed(this.db.names.put(nameKey(tenant.name), tenant.tenant_id));
    this.cache.set(tenant.tenant_id, tenant);
    if (this.knownCount !== undefined) this.knownCount++;
  }

  /** Suspends or resumes a tenant. */
  async setStatus(tenantId: string, status: Tenant["status"]): Promise<Tenant> {
    const tenant = this.db.tenants.get(tenantId);
    if (!tenant) throw new Error(`no tenant ${tenantId}`);
    const updated: Tenant = { ...tenant, status };
    await committed(this.db.tenants.put(tenantId, updated));
    this.cache.set(tenantId, updated);
    return updated;
  }

  /** The stored tenant, past the cache (what a removal reads). */
  stored(tenantId: string): Tenant | undefined {
    return this.db.tenants.get(tenantId);
  }

  /** Issues the removal of the tenant and its name; its promise is the commit's. Then `forget`. */
  issueRemoval(tenant: Tenant): Promise<unknown> {
    this.db.names.remove(nameKey(tenant.name));
    return this.db.tenants.remove(tenant.tenant_id);
  }

  /** After a removal's commit. */
  forget(tenantId: string): void {
    this.cache.delete(tenantId);
    if (this.knownCount !== undefined) this.knownCount--;
  }

  /** The content was replaced by that of `source` (a snapshot), or by nothing. */
  reset(source: RootDatabase | undefined): void {
    this.cache.clear();
    this.knownCount = source ? source.openDB({ name: SYSTEM_TABLES.tenants.tenants.name }).getCount() : 0;
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
