import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { TokenService } from "../src/http/tokens.ts";
import { OPERATOR_TENANT_ID } from "../src/models/common.ts";
import { systemClock } from "../src/runtime/clock.ts";
import { freePort } from "./helpers/free-port.ts";

/**
 * Crash durability: a write acknowledged with 201 has committed, so a `kill -9` right after the
 * acknowledgements loses none of them. Runs the real server (`bun run src/index.ts`) twice on one
 * data directory.
 */
const SECRET = "durability-secret-that-is-at-least-32-bytes!!";
const ROOT = join(import.meta.dir, "..");
const dataDir = mkdtempSync(join(tmpdir(), "mrt-durability-"));
const procs: Subprocess[] = [];

afterAll(async () => {
  for (const p of procs) {
    if (p.exitCode === null && p.signalCode === null) {
      p.kill(9);
      await p.exited;
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
});

async function startServer(label: string): Promise<{ base: string; proc: Subprocess; log: string }> {
  const port = freePort();
  const log = join(dataDir, `${label}.log`);
  const proc = Bun.spawn([process.execPath, "run", "src/index.ts"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      MEMORY_RUNTIME_JWT_SECRET: SECRET,
      MEMORY_RUNTIME_DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
    },
    stdout: Bun.file(log),
    stderr: Bun.file(`${log}.err`),
  });
  procs.push(proc);
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited ${proc.exitCode}: ${readLog(`${log}.err`)}`);
    try {
      const res = await fetch(`${base}/healthz`);
      if (res.status === 200) return { base, proc, log };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not come up: ${readLog(`${log}.err`)}`);
    await Bun.sleep(50);
  }
}

function readLog(path: string): string {
  try {
    return readFileSync(path, "utf8").slice(-2000);
  } catch {
    return "(no log)";
  }
}

async function call(base: string, method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

test("every write acknowledged with 201 survives kill -9", async () => {
  const tokens = new TokenService(new TextEncoder().encode(SECRET), systemClock);
  const admin = (
    await tokens.mint({
      sub: "operator",
      tenantId: OPERATOR_TENANT_ID,
      roles: [],
      admin: true,
      ttlSeconds: 600,
    })
  ).token;

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
  const writer = async () => {
    while (!killed && sent < 2000) {
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
