/**
 * The import's seal (the storage port's `sealImport`, src/ports/runtime-ports.ts, called by
 * actors/tenant/transfer/transfer.ts), where cluster mode logs an import: it runs once the vault holds the
 * whole import and before the import is answered, and an import whose seal fails is answered with
 * the seal's error and keeps nothing (a retry imports into the still-empty tenant).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Unavailable } from "../../../../src/errors/domain-errors.ts";
import { singleNodeStorage, type TenantStorage } from "../../../../src/ports/runtime-ports.ts";
import type { TenantVault } from "../../../../src/vault/tenant-vault.ts";
import { type Harness, startHarness } from "../../../helpers/harness.ts";

let h: Harness;
/** The seal a test sets for its own import; none between tests (a single node's). */
let seal: ((tenantId: string, vault: TenantVault) => Promise<void>) | undefined;
const storage: TenantStorage = {
  ...singleNodeStorage,
  sealImport: (tenantId, vault) =>
    seal ? seal(tenantId, vault) : singleNodeStorage.sealImport(tenantId, vault),
};

/** Sets `installed` as the storage port's seal; answers the function that takes it away. */
function sealWith(installed: (tenantId: string, vault: TenantVault) => Promise<void>): () => void {
  seal = installed;
  return () => {
    seal = undefined;
  };
}

beforeAll(async () => {
  h = await startHarness({ ports: { storage } });
});
afterAll(async () => {
  await h.close();
});

async function exportWithFacts(count: number): Promise<string> {
  const source = await h.createTenant();
  for (let i = 0; i < count; i++) {
    const wrote = await h.json("POST", "/memory/facts", {
      token: source.token,
      body: { content: `sealed fact ${i}` },
    });
    expect(wrote.status).toBe(201);
  }
  const exported = await h.call("GET", `/admin/tenants/${source.tenant_id}/export`, { token: h.adminToken });
  expect(exported.status).toBe(200);
  return exported.text();
}

const importInto = (tenantId: string, ndjson: string) =>
  h.json("POST", `/admin/tenants/${tenantId}/import`, {
    token: h.adminToken,
    raw: ndjson,
    headers: { "content-type": "application/x-ndjson" },
  });

const factsOf = async (token: string) =>
  (await h.json("GET", "/memory/facts?limit=100", { token })).body.items.map(
    (e: { content: string }) => e.content,
  );

describe("import seal", () => {
  test("runs on the complete vault before the import is answered", async () => {
    const ndjson = await exportWithFacts(3);
    const target = await h.createTenant();
    const sealed: Array<{ tenant: string; dir: string; entries: number }> = [];
    const uninstall = sealWith(async (tenantId, vault) => {
      sealed.push({ tenant: tenantId, dir: vault.dir, entries: vault.counters.entryCount() });
    });
    try {
      const imported = await importInto(target.tenant_id, ndjson);
      expect(imported.status).toBe(200);
      expect(imported.body.imported.entries).toBe(3);
      expect(sealed).toEqual([
        { tenant: target.tenant_id, dir: expect.stringContaining(target.tenant_id), entries: 3 },
      ]);
    } finally {
      uninstall();
    }
    expect((await factsOf(target.token)).sort()).toEqual(["sealed fact 0", "sealed fact 1", "sealed fact 2"]);
  });

  test("a failed seal fails the import with its error and keeps nothing; a retry imports", async () => {
    const ndjson = await exportWithFacts(2);
    const target = await h.createTenant();
    const uninstall = sealWith(async () => {
      throw new Unavailable("partition 7 moved to another node; retry", 1);
    });
    try {
      const refused = await importInto(target.tenant_id, ndjson);
      expect(refused.status).toBe(503);
      expect(refused.res.headers.get("retry-after")).toBe("1");
      expect(refused.body.code).toBe("unavailable");
    } finally {
      uninstall();
    }
    expect(await factsOf(target.token)).toEqual([]);
    const retried = await importInto(target.tenant_id, ndjson);
    expect(retried.status).toBe(200);
    expect((await factsOf(target.token)).sort()).toEqual(["sealed fact 0", "sealed fact 1"]);
  });
});
