import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUILTIN_TENANT_ADMIN } from "../../src/models/role.ts";
import { TenantDirectory } from "../../src/tenants/directory.ts";
import { SystemStore } from "../../src/vault/system-store.ts";
import { tenantDir } from "../../src/vault/tenant-paths.ts";
import { tenantRecord } from "../fakes/system-records.ts";

const T1 = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
const T2 = "01JDB2X6J3KQ5W8Z3M4N7P9R2T";

const stores: SystemStore[] = [];
const dirs: string[] = [];

/** A directory over a fresh store holding T1 (with a role) and T2, and its data directory. */
async function fresh(): Promise<{ directory: TenantDirectory; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), "mrt-directory-"));
  dirs.push(dataDir);
  const store = new SystemStore(dataDir, 100);
  stores.push(store);
  await store.createTenant(tenantRecord(T1, "Acme"));
  await store.createTenant(tenantRecord(T2, "Beta"));
  await store.putRole(T1, { name: "reader", permissions: ["memory:read"], description: "", builtin: false });
  return { directory: new TenantDirectory(store, dataDir), dataDir };
}

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("TenantDirectory", () => {
  test("answers which tenants exist, their count and pages", async () => {
    const { directory } = await fresh();
    expect(directory.get(T1)).toEqual(tenantRecord(T1, "Acme"));
    expect(directory.exists(T2)).toBe(true);
    expect(directory.exists("01JDB2X6J3KQ5W8Z3M4N7P9R2V")).toBe(false);
    expect(directory.count()).toBe(2);
    expect(directory.page(1)).toEqual({ tenants: [tenantRecord(T1, "Acme")], more: true });
    expect(directory.page(1, T1)).toEqual({ tenants: [tenantRecord(T2, "Beta")], more: false });
  });

  test("reads a tenant's role library, the built-in tenant_admin first", async () => {
    const { directory } = await fresh();
    expect(directory.roles(T1).map((r) => r.name)).toEqual([BUILTIN_TENANT_ADMIN.name, "reader"]);
    expect(directory.role(T1, "reader")?.permissions).toEqual(["memory:read"]);
    expect(directory.role(T2, "reader")).toBeUndefined();
  });

  test("a malformed id names no tenant and no vault, and is never turned into a path", async () => {
    const { directory } = await fresh();
    expect(directory.get("../../etc")).toBeUndefined();
    expect(directory.exists("")).toBe(false);
    expect(directory.vaultPresent("../../etc")).toBe(false);
  });

  test("a vault is present once its data file exists on disk", async () => {
    const { directory, dataDir } = await fresh();
    expect(directory.vaultPresent(T1)).toBe(false);
    mkdirSync(tenantDir(dataDir, T1), { recursive: true });
    writeFileSync(join(tenantDir(dataDir, T1), "data.mdb"), "");
    expect(directory.vaultPresent(T1)).toBe(true);
    expect(directory.vaultPresent(T2)).toBe(false);
  });
});
