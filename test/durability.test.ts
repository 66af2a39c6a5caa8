import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  adminTokenFor,
  httpCall,
  killHard,
  type ServerProcess,
  startServerProcess,
} from "./helpers/server-process.ts";

/**
 * Crash durability: a write acknowledged with 201 has committed, so a `kill -9` right after the
 * acknowledgements loses none of them. Runs the real server (`bun run src/index.ts`) twice on one
 * data directory.
 */
const SECRET = "durability-secret-that-is-at-least-32-bytes!!";
const dataDir = mkdtempSync(join(tmpdir(), "mrt-durability-"));
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

async function call(base: string, method: string, path: string, token: string, body?: unknown) {
  const { status, body: parsed } = await httpCall(base, method, path, { token, body });
  return { status, body: parsed };
}

test("every write acknowledged with 201 survives kill -9", async () => {
  const admin = await adminTokenFor(SECRET);

  const first = await startServer("first");
  const created = await call(first.base, "POST", "/admin/tenants", admin, { name: "Durable Co" });
  expect(created.status).toBe(201);
  const tenantId: string = created.body.tenant_id;
  const token: string = created.body.token;

  // 16 writers post without pause; the server is killed the moment 150 writes are acknowledged,
  // so writes are always in flight (staged, committing, or answered but not yet read) at the kill.
  const WRITERS = 16;
  const KILL_AFTER = 150;
  const acked = new Map<string, number>();
  let sent = 0;
  let killed = false;
  const kill = () => {
    if (killed) return;
    killed = true;
    first.proc.kill(9);
  };
  // Writers go on until the dead server refuses them: each then ends on a write sent and never
  // answered, so the kill always interrupts work (stopping at the kill left it to chance whether
  // the last in-flight writes were answered before the signal landed).
  const writer = async () => {
    while (sent < 2000) {
      const i = sent++;
      try {
        const res = await call(first.base, "POST", "/memory/facts", token, {
          content: `durable entry ${i} marker zq${i}x`,
          tags: ["durable"],
          data: { i },
        });
        if (res.status === 201) acked.set(res.body.id as string, i);
        if (acked.size >= KILL_AFTER) kill();
      } catch {
        // the connection died with the server: this write was never acknowledged
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, writer));
  kill();
  await first.proc.exited;
  expect(first.proc.signalCode).toBe("SIGKILL");
  expect(acked.size).toBeGreaterThanOrEqual(KILL_AFTER);
  // Some writes were sent and never answered: the kill really interrupted work.
  expect(sent).toBeGreaterThan(acked.size);

  const second = await startServer("second");
  // Reads by id.
  const reads = await Promise.all(
    [...acked.keys()].map((id) => call(second.base, "GET", `/memory/facts/${id}`, token)),
  );
  const missing = reads.flatMap((r, k) => (r.status === 200 ? [] : [[...acked.keys()][k]]));
  expect(missing).toEqual([]);
  for (const r of reads) expect(r.body.tenant_id).toBe(tenantId);

  // Lists.
  const listed = await call(second.base, "GET", "/memory/facts?limit=500", token);
  expect(listed.status).toBe(200);
  const listedIds = new Set((listed.body.items as Array<{ id: string }>).map((e) => e.id));
  expect([...acked.keys()].filter((id) => !listedIds.has(id))).toEqual([]);

  // A filter-only search walks the same entries (limit 100 a page, so check the newest).
  const filtered = await call(second.base, "POST", "/memory/search", token, {
    tags: ["durable"],
    limit: 100,
  });
  expect(filtered.status).toBe(200);
  expect(filtered.body.results).toHaveLength(Math.min(100, listedIds.size));
  for (const r of filtered.body.results) expect(listedIds.has(r.entry.id)).toBe(true);

  // Text search finds acknowledged entries after the crash (the indexes were rebuilt from the vault).
  const sample = [...acked.entries()].slice(0, 10);
  for (const [id, i] of sample) {
    const found = await call(second.base, "POST", "/memory/search", token, { query: `zq${i}x`, limit: 3 });
    expect(found.status).toBe(200);
    expect(found.body.results[0]?.entry.id).toBe(id);
  }

  // The restarted server keeps accepting writes.
  const after = await call(second.base, "POST", "/memory/facts", token, {
    content: "written after the crash",
  });
  expect(after.status).toBe(201);

  second.proc.kill("SIGTERM");
  expect(await second.proc.exited).toBe(0);
}, 60_000);
