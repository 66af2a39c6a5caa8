import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TENANT_LEXICAL_JOURNAL } from "../actors/tenant/memory/lexical-store.ts";
import { TENANT_LEXICAL_FILE } from "../src/search/vector/index-tuning.ts";
import { tenantDir } from "../src/vault/tenant-paths.ts";
import { pollUntil } from "./helpers/poll.ts";
import {
  adminTokenFor,
  httpCall,
  killHard,
  type ServerProcess,
  startServerProcess,
} from "./helpers/server-process.ts";

/**
 * The BM25 index is saved as entries are written (a full save, then a journal), not only at a clean
 * stop: after a `kill -9` the restarted server finds every acknowledged entry by its words, those in
 * the saved files and those only in the change log alike. Runs the real server twice on one
 * data directory.
 */
const SECRET = "lexical-restart-secret-at-least-32-bytes!!";
const dataDir = mkdtempSync(join(tmpdir(), "mrt-lexical-restart-"));
const servers: ServerProcess[] = [];

afterAll(async () => {
  for (const s of servers) await killHard(s);
  rmSync(dataDir, { recursive: true, force: true });
});

async function startServer(label: string): Promise<ServerProcess> {
  const server = await startServerProcess({ dataDir, secret: SECRET, logDir: dataDir, label });
  servers.push(server);
  return server;
}

async function firstHit(base: string, token: string, query: string): Promise<string | undefined> {
  const found = await httpCall(base, "POST", "/memory/search", { token, body: { query, limit: 3 } });
  expect(found.status).toBe(200);
  return found.body.results[0]?.entry.id;
}

test("words stay searchable after kill -9: saved index, journal and change log", async () => {
  const admin = await adminTokenFor(SECRET);
  const first = await startServer("first");
  const created = await httpCall(first.base, "POST", "/admin/tenants", {
    token: admin,
    body: { name: "Words" },
  });
  expect(created.status).toBe(201);
  const { tenant_id: tenantId, token } = created.body as { tenant_id: string; token: string };
  const health = () => httpCall(first.base, "GET", `/tenants/${tenantId}/healthz`, { token });
  const settled = () =>
    pollUntil(health, (h) => h.status === 200 && h.body.index.pending === 0, { timeoutMs: 20_000 });

  // Two batches of 1,000, each followed by a lull: the first is saved whole, the second journaled.
  const ids: string[] = [];
  for (const from of [0, 1000]) {
    const entries = Array.from({ length: 1000 }, (_, i) => ({ content: `note kw${from + i}x on the topic` }));
    const written = await httpCall(first.base, "POST", "/memory/facts/batch", { token, body: { entries } });
    expect(written.status).toBe(201);
    ids.push(...(written.body.entries as Array<{ id: string }>).map((e) => e.id));
    await settled();
  }
  const dir = tenantDir(dataDir, tenantId);
  expect(existsSync(join(dir, TENANT_LEXICAL_FILE))).toBe(true);
  expect(statSync(join(dir, TENANT_LEXICAL_JOURNAL)).size).toBeGreaterThan(0);
  // Too few to be saved before the kill: found again through the change log only.
  const late = await httpCall(first.base, "POST", "/memory/facts", {
    token,
    body: { content: "the zquokkax note" },
  });
  expect(late.status).toBe(201);

  first.proc.kill(9);
  await first.proc.exited;
  expect(first.proc.signalCode).toBe("SIGKILL");

  const second = await startServer("second");
  expect(await firstHit(second.base, token, "kw17x")).toBe(ids[17]);
  expect(await firstHit(second.base, token, "kw1999x")).toBe(ids[1999]);
  expect(await firstHit(second.base, token, "zquokkax")).toBe(late.body.id);
  second.proc.kill("SIGTERM");
  expect(await second.proc.exited).toBe(0);
}, 60_000);
