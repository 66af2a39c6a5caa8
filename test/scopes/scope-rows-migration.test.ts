import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Database, Key } from "lmdb";
import { openEnvironment } from "../../src/vault/tables.ts";
import { tenantDir } from "../../src/vault/tenant-paths.ts";
import { startHarness } from "../helpers/harness.ts";

/**
 * Index records written before scopes (9 fields, no subject, session or agent): on open each is
 * made again from its entry, so the scope filters find entries stored by an earlier runtime, and
 * the remade records are stored.
 */
test("rows of before scopes are remade on open; the filters find their entries", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "mrt-scope-rows-"));
  try {
    const before = await startHarness({ dataDir });
    const { tenant_id, token } = await before.createTenant();
    const ada = await before.json("POST", "/memory/facts", {
      token,
      body: { content: "Prefers tea", subject: "ada", session_id: "s1", agent_id: "bot" },
    });
    await before.json("POST", "/memory/facts", {
      token,
      body: { content: "Prefers coffee", subject: "bob" },
    });
    await before.close();

    const dir = tenantDir(dataDir, tenant_id);
    const rowsOf = () => {
      const root = openEnvironment(dir);
      const rows = root.openDB({ name: "entry-rows" }) as Database<unknown[], Key>;
      return { root, rows };
    };
    const { root, rows } = rowsOf();
    root.transactionSync(() => {
      for (const { key, value } of rows.getRange()) rows.put(key, value.slice(0, 9));
    });
    void root.close();

    const after = await startHarness({ dataDir });
    try {
      for (const [query, expected] of [
        ["subject=ada", [ada.body.id]],
        ["session_id=s1", [ada.body.id]],
        ["agent_id=bot", [ada.body.id]],
      ] as const) {
        const res = await after.json("GET", `/memory/facts?${query}`, { token });
        expect(res.body.items.map((e: { id: string }) => e.id)).toEqual(expected);
      }
    } finally {
      await after.close();
    }
    const reopened = rowsOf();
    const lengths = [...reopened.rows.getRange()].map(({ value }) => value.length);
    void reopened.root.close();
    expect(lengths).toEqual([12, 12]);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
