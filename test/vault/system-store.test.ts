import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { open as openLmdb } from "lmdb";
import { BUILTIN_TENANT_ADMIN } from "../../src/models/role.ts";
import { nameKey, SystemStore } from "../../src/vault/system-store.ts";
import { denialRecord as denial, tenantRecord as tenant } from "../fakes/system-records.ts";

const T1 = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
const T2 = "01JDB2X6J3KQ5W8Z3M4N7P9R2T";

const open: SystemStore[] = [];
const dirs: string[] = [];

function fresh(auditLimit = 1000): { store: SystemStore; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "mrt-store-"));
  dirs.push(dir);
  return { store: reopen(dir, auditLimit), dir };
}

function reopen(dir: string, auditLimit = 1000): SystemStore {
  const store = new SystemStore(dir, auditLimit);
  open.push(store);
  return store;
}

afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("tenants", () => {
  test("stores, reads, lists and counts tenants", async () => {
    const { store } = fresh();
    expect(store.tenantCount()).toBe(0);
    expect(store.getTenant(T1)).toBeUndefined();
    await store.createTenant(tenant(T1, "Acme"));
    await store.createTenant(tenant(T2, "Beta"));
    expect(store.getTenant(T1)).toEqual(tenant(T1, "Acme"));
    expect(store.listTenants().map((t) => t.tenant_id)).toEqual([T1, T2]);
    expect(store.tenantCount()).toBe(2);
  });

  test("names are found case-insensitively, after trimming and Unicode normalisation", async () => {
    const { store } = fresh();
    await store.createTenant(tenant(T1, "Acme Corp"));
    for (const name of ["Acme Corp", "acme corp", "ACME CORP", "  aCmE cOrP  ", "\uff21cme Corp"]) {
      expect(store.tenantIdByName(name)).toBe(T1);
    }
    expect(store.tenantIdByName("Acme")).toBeUndefined();
    expect(store.tenantIdByName("Acme  Corp")).toBeUndefined();
  });

  test("a store whose name index was written with the older key is rebuilt on open", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mrt-store-"));
    dirs.push(dir);
    // As version 1 wrote it: lower-cased only, and no key version in meta.
    const old = openLmdb({ path: join(dir, "system"), compression: false });
    const tenant = {
      tenant_id: T1,
      name: "Straße",
      status: "active",
      created_at: "2026-01-01T00:00:00.000Z",
    };
    await old.openDB({ name: "tenants" }).put(T1, tenant);
    await old.openDB({ name: "tenant-names" }).put("straße", T1);
    await old.close();
    const store = reopen(dir);
    expect(store.tenantIdByName("STRASSE")).toBe(T1);
    expect(store.tenantIdByName("straße")).toBe(T1);
  });

  test("a directory written with the store's on-disk layout opens with everything in it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mrt-store-"));
    dirs.push(dir);
    // The database names and keys as every earlier version wrote them: they must never change.
    const old = openLmdb({ path: join(dir, "system"), compression: false });
    const role = { name: "reader", permissions: ["tenant:read"], description: "reads", builtin: false };
    const event = {
      at: "2026-01-01T00:00:00.000Z",
      action: "tenant.created",
      sub: "op",
      tenant_id: T1,
      target: null,
      details: {},
    };
    await old.openDB({ name: "tenants" }).put(T1, tenant(T1, "Acme"));
    await old.openDB({ name: "tenant-names" }).put("acme", T1);
    await old.openDB({ name: "roles" }).put([T1, "reader"], role);
    await old.openDB({ name: "audit" }).put([T1, 7], denial(T1, 7));
    await old.openDB({ name: "admin-audit" }).put(3, event);
    const meta = old.openDB({ name: "meta" });
    await meta.put("name-key-version", 2);
    await meta.put("audit-seq", 7);
    await meta.put("admin-audit-seq", 3);
    await meta.put("system-applied-seq", 11);
    await old.close();
    const store = reopen(dir);
    expect(store.getTenant(T1)).toEqual(tenant(T1, "Acme"));
    expect(store.tenantIdByName("ACME")).toBe(T1);
    expect(store.getRole(T1, "reader")).toEqual(role);
    expect(store.listDenials(T1, 10).items).toEqual([denial(T1, 7)]);
    expect(store.listAdminEvents(10).items).toEqual([event]);
    expect(store.appliedSeq()).toBe(11);
    expect(store.isEmpty()).toBe(false);
    // The sequences continue where the directory left them.
    await store.recordDenial(denial(T1, 8));
    expect(store.listDenials(T1, 1)).toEqual({ items: [denial(T1, 8)], nextBefore: 8 });
    await store.recordAdminEvent({ ...event, action: "tenant.suspended" });
    expect(store.listAdminEvents(1).nextBefore).toBe(4);
  });

  test("nameKey folds case and trims", () => {
    expect(nameKey("  Hello World ")).toBe("hello world");
    expect(nameKey("ÄBC")).toBe(nameKey("äbc"));
    expect(nameKey(nameKey(" X "))).toBe(nameKey(" X "));
  });

  test("tenants survive closing and reopening", async () => {
    const { store, dir } = fresh();
    await store.createTenant(tenant(T1, "Durable"));
    await store.close();
    await store.close(); // idempotent
    const again = reopen(dir);
    expect(again.getTenant(T1)?.name).toBe("Durable");
    expect(again.tenantIdByName("durable")).toBe(T1);
  });
});

describe("roles", () => {
  const role = (name: string, permissions: string[] = ["memory:read"]) => ({
    name,
    permissions,
    description: "",
    builtin: false,
  });

  test("the built-in tenant_admin comes first, then stored roles by name", async () => {
    const { store } = fresh();
    expect(store.listRoles(T1)).toEqual([BUILTIN_TENANT_ADMIN]);
    await store.putRole(T1, role("zeta"));
    await store.putRole(T1, role("alpha"));
    expect(store.listRoles(T1).map((r) => r.name)).toEqual(["tenant_admin", "alpha", "zeta"]);
    expect(store.getRole(T1, "tenant_admin")).toEqual(BUILTIN_TENANT_ADMIN);
    expect(store.getRole(T2, "tenant_admin")).toEqual(BUILTIN_TENANT_ADMIN);
  });

  test("putRole says whether it replaced a role", async () => {
    const { store } = fresh();
    expect(await store.putRole(T1, role("agent"))).toBe(false);
    expect(await store.putRole(T1, role("agent", ["memory:write"]))).toBe(true);
    expect(store.getRole(T1, "agent")?.permissions).toEqual(["memory:write"]);
  });

  test("role libraries are per tenant", async () => {
    const { store } = fresh();
    await store.putRole(T1, role("agent"));
    expect(store.getRole(T2, "agent")).toBeUndefined();
    expect(store.listRoles(T2)).toEqual([BUILTIN_TENANT_ADMIN]);
  });

  test("deleteRole is true when a role was deleted and false when there was none", async () => {
    const { store } = fresh();
    await store.putRole(T1, role("agent"));
    expect(await store.deleteRole(T1, "agent")).toBe(true);
    expect(store.getRole(T1, "agent")).toBeUndefined();
    expect(await store.deleteRole(T1, "agent")).toBe(false);
    expect(await store.deleteRole(T1, "never")).toBe(false);
  });

  test("roles survive closing and reopening", async () => {
    const { store, dir } = fresh();
    await store.putRole(T1, role("keeper", ["tenant:read"]));
    await store.close();
    expect(reopen(dir).getRole(T1, "keeper")).toEqual(role("keeper", ["tenant:read"]));
  });
});

/** The subs of one page of the denial log. */
function subs(store: SystemStore, tenantId: string, limit: number, before?: number): string[] {
  return store.listDenials(tenantId, limit, before).items.map((d) => d.sub);
}

describe("denial audit", () => {
  test("lists newest first, honouring the limit", async () => {
    const { store } = fresh();
    for (let n = 1; n <= 5; n++) await store.recordDenial(denial(T1, n));
    expect(subs(store, T1, 100)).toEqual(["agent-5", "agent-4", "agent-3", "agent-2", "agent-1"]);
    expect(subs(store, T1, 2)).toEqual(["agent-5", "agent-4"]);
    expect(store.listDenials(T1, 1).items[0]).toEqual(denial(T1, 5));
  });

  test("pages walk the whole log once, newest first, and the last page says there is no more", async () => {
    const { store } = fresh();
    for (let n = 1; n <= 5; n++) await store.recordDenial(denial(T1, n));
    const first = store.listDenials(T1, 2);
    expect(first.items.map((d) => d.sub)).toEqual(["agent-5", "agent-4"]);
    const second = store.listDenials(T1, 2, first.nextBefore);
    expect(second.items.map((d) => d.sub)).toEqual(["agent-3", "agent-2"]);
    const third = store.listDenials(T1, 2, second.nextBefore);
    expect(third.items.map((d) => d.sub)).toEqual(["agent-1"]);
    expect(third.nextBefore).toBeUndefined();
    expect(store.listDenials(T1, 5).nextBefore).toBeUndefined();
  });

  test("records queued without waiting for each other's commits keep the bound exactly", async () => {
    const { store } = fresh(3);
    await Promise.all(Array.from({ length: 10 }, (_, i) => store.recordDenial(denial(T1, i + 1))));
    expect(subs(store, T1, 100)).toEqual(["agent-10", "agent-9", "agent-8"]);
  });

  test("keeps only the newest auditLimit records per tenant", async () => {
    const { store } = fresh(3);
    for (let n = 1; n <= 7; n++) await store.recordDenial(denial(T1, n));
    await store.recordDenial(denial(T2, 100));
    expect(subs(store, T1, 100)).toEqual(["agent-7", "agent-6", "agent-5"]);
    expect(subs(store, T2, 100)).toEqual(["agent-100"]);
  });

  test("after a reopen the bound still holds and new records come first", async () => {
    const { store, dir } = fresh(3);
    for (let n = 1; n <= 4; n++) await store.recordDenial(denial(T1, n));
    await store.close();
    const again = reopen(dir, 3);
    expect(subs(again, T1, 100)).toEqual(["agent-4", "agent-3", "agent-2"]);
    await again.recordDenial(denial(T1, 5));
    await again.recordDenial(denial(T1, 6));
    expect(subs(again, T1, 100)).toEqual(["agent-6", "agent-5", "agent-4"]);
  });

  test("a tenant with no denials lists none", () => {
    const { store } = fresh();
    expect(store.listDenials(T1, 10)).toEqual({ items: [], nextBefore: undefined });
  });
});
