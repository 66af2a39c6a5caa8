/**
 * A node opens no vault of a tenant whose partition it does not serve (the placement port's
 * `vaultRefusal`, src/ports/runtime-ports.ts, given by src/cluster/cluster-ports.ts): a request that reaches the tenant after its local
 * copy was closed and removed (the partition moved) is answered 503 "moved" and re-creates nothing;
 * a tenant created through a node that does not serve it gets no vault there.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Fenced } from "../../src/cluster/fence.ts";
import { dropLocalTenants } from "../../src/cluster/local-copies.ts";
import { partitionOf } from "../../src/cluster/partition.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";

let h: Harness;
/** Tenants this "node" does not serve. */
const elsewhere = new Set<string>();
/** While set, this "node" serves no tenant at all. */
let servesNothing = false;
const placement = {
  servedHere: () => true,
  vaultRefusal: (tenantId: string) =>
    servesNothing ? new Fenced(0) : elsewhere.has(tenantId) ? new Fenced(partitionOf(tenantId)) : undefined,
};

beforeAll(async () => {
  h = await startHarness({ ports: { placement } });
});
afterAll(async () => {
  await h.close();
});

const vaultDir = (tenantId: string) => join(h.dataDir, "tenants", tenantId);

describe("vaults open only where their partition is served", () => {
  test("after its copy is removed, a late read or write is a 503 and re-creates no vault", async () => {
    const t = await h.createTenant();
    const wrote = await h.json("POST", "/memory/facts", {
      token: t.token,
      body: { content: "kept by the log" },
    });
    expect(wrote.status).toBe(201);
    expect(existsSync(vaultDir(t.tenant_id))).toBe(true);

    // The partition moves away: the copy is closed and removed as local-copies.ts does.
    elsewhere.add(t.tenant_id);
    const deps = { dataDir: h.dataDir, passivateTenant: h.runtime.passivateTenant };
    expect(await dropLocalTenants(deps, partitionOf(t.tenant_id))).toContain(t.tenant_id);
    expect(existsSync(vaultDir(t.tenant_id))).toBe(false);

    for (const [method, body] of [
      ["GET", undefined],
      ["POST", { content: "too late" }],
    ] as const) {
      const late = await h.json(method, "/memory/facts", { token: t.token, body });
      expect(late.status).toBe(503);
      expect(late.res.headers.get("retry-after")).toBe("1");
      expect(late.body.detail).toContain("moved to another node");
    }
    expect(existsSync(vaultDir(t.tenant_id))).toBe(false);
  });

  test("a tenant created through a node that does not serve it gets no vault there", async () => {
    servesNothing = true;
    try {
      const created = await h.json("POST", "/admin/tenants", {
        token: h.adminToken,
        body: { name: "Elsewhere" },
      });
      expect(created.status).toBe(201);
      expect(existsSync(vaultDir(created.body.tenant_id))).toBe(false);
    } finally {
      servesNothing = false;
    }
  });

  test("a tenant created where it is served gets its vault at once, as on a single node", async () => {
    const created = await h.json("POST", "/admin/tenants", { token: h.adminToken, body: { name: "Served" } });
    expect(created.status).toBe(201);
    expect(existsSync(vaultDir(created.body.tenant_id))).toBe(true);
  });
});
