import { BUILTIN_TENANT_ADMIN, type Role, TENANT_ADMIN } from "../../models/role.ts";
import { committed, type SystemRoom } from "./room.ts";
import type { SystemTablesOf } from "./tables.ts";

/**
 * The tenants' role libraries. Roles are read on every authenticated request, so they are cached
 * in memory (only hits, keyed `<tenant>/<name>`); the system store is their only writer.
 */
export class SystemRoles {
  private readonly cache = new Map<string, Role | undefined>();

  constructor(
    private readonly db: SystemTablesOf<"roles">,
    private readonly room: SystemRoom,
  ) {}

  /** The tenant's library: the built-in `tenant_admin` first, then stored roles by name. */
  list(tenantId: string): Role[] {
    const stored = this.db.roles.getRange(ofTenant(tenantId)).map(({ value }) => value);
    return [BUILTIN_TENANT_ADMIN, ...stored];
  }

  get(tenantId: string, name: string): Role | undefined {
    if (name === TENANT_ADMIN) return BUILTIN_TENANT_ADMIN;
    const key = `${tenantId}/${name}`;
    if (this.cache.has(key)) return this.cache.get(key);
    const role = this.db.roles.get([tenantId, name]);
    if (role) this.cache.set(key, role);
    return role;
  }

  /** Stores a role; true when it replaced one of the same name. */
  async put(tenantId: string, role: Role): Promise<boolean> {
    this.room.check();
    const replaced = this.db.roles.doesExist([tenantId, role.name]);
    await committed(this.db.roles.put([tenantId, role.name], role));
    this.cache.set(`${tenantId}/${role.name}`, role);
    return replaced;
  }

  async delete(tenantId: string, name: string): Promise<boolean> {
    // lmdb's remove() resolves true even for a missing key; the system actor serialises writes.
    if (!this.db.roles.doesExist([tenantId, name])) return false;
    await committed(this.db.roles.remove([tenantId, name]));
    // After the commit: a read racing the removal may have cached the role again from LMDB.
    this.cache.delete(`${tenantId}/${name}`);
    return true;
  }

  /** Issues the removal of every stored role of the tenant (a tenant deletion); answers their names. */
  issueRemovalOf(tenantId: string): string[] {
    const keys = [...this.db.roles.getKeys(ofTenant(tenantId))];
    for (const key of keys) this.db.roles.remove(key);
    return keys.map(([, name]) => name);
  }

  /** After the commit of `issueRemovalOf`. */
  forget(tenantId: string, names: string[]): void {
    for (const name of names) this.cache.delete(`${tenantId}/${name}`);
  }

  isEmpty(): boolean {
    return this.db.roles.getCount() === 0;
  }

  /** The content was replaced (a snapshot). */
  reset(): void {
    this.cache.clear();
  }
}

function ofTenant(tenantId: string): { start: [string, string]; end: [string, string] } {
  return { start: [tenantId, ""], end: [tenantId, "\uffff"] };
}
