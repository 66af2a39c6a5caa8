import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openEnvironment, TABLES } from "../../src/vault/tables.ts";
import { TenantVault } from "../../src/vault/tenant-vault.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mrt-tables-"));
  dirs.push(dir);
  return dir;
}

/** The named databases of a tenant vault on disk: existing vaults must open with these names. */
const ON_DISK = [
  "changes",
  "changes-by-entry",
  "connector-state",
  "dead-letters",
  "dedupe",
  "delivery-log",
  "embed-queue",
  "embeddings",
  "entries-by-seq",
  "entry-ids",
  "entry-rows",
  "held-deliveries",
  "held-ids",
  "idempotency",
  "meta",
  "objects",
  "outbound-deliveries",
  "outbound-subscriptions",
  "tombstones",
  "webhook-sources",
];

describe("the vault's tables, declared once", () => {
  test("the list names exactly the databases vaults hold on disk, each once", () => {
    const names = Object.values(TABLES).flatMap((group) => Object.values(group).map((t) => t.name));
    expect(names.sort()).toEqual(ON_DISK);
  });

  test("a table's field name is unique across groups (an export opens them side by side)", () => {
    const keys = Object.values(TABLES).flatMap((group) => Object.keys(group));
    expect(new Set(keys).size).toBe(keys.length);
  });

  test("a new vault creates every group but outbound's, which opens on first use", async () => {
    const dir = tempDir();
    const listed = () => {
      const root = openEnvironment(dir);
      try {
        return [...root.getKeys()].map(String).sort();
      } finally {
        void root.close();
      }
    };
    await new TenantVault(dir).close();
    expect(listed()).toEqual(ON_DISK.filter((n) => !n.startsWith("outbound-")));
    const vault = new TenantVault(dir);
    vault.tablesOf("outbound");
    await vault.close();
    expect(listed()).toEqual(ON_DISK);
  });
});
