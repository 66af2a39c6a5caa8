/**
 * Storage faults through a real server process (issue 13, item 7): its file-size limit lowered to a
 * little past the end of a tenant's LMDB file (prlimit on the server's pid, no root), so commits
 * really fail on lmdb-js's write thread. The server stays up (it ignores SIGXFSZ, and lmdb-js's own
 * rejections of the failed commit do not end it), answers the writes 507 and the reads 200, takes
 * writes again once the limit is lifted (no restart), and after a `kill -9` and a restart every
 * acknowledged entry is there once.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hasPrlimit, liftFileSizeLimit, limitFileSize } from "../helpers/file-size-limit.ts";
import {
  adminTokenFor,
  httpCall,
  killHard,
  type ServerProcess,
  startServerProcess,
} from "../helpers/server-process.ts";

const SECRET = "server-disk-full-secret-at-least-32-bytes!";
const FILLER = "full ".repeat(1600);
/** Bound of the loop that writes until the disk refuses. */
const MAX_WRITES = 300;
/** Less than a page past the file's end: the next page written is cut short (EIO, as on a full disk). */
const SLACK = 1000;

const dataDir = mkdtempSync(join(tmpdir(), "mrt-server-disk-full-"));
const servers: ServerProcess[] = [];
afterAll(async () => {
  for (const s of servers) await killHard(s);
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(label: string): Promise<ServerProcess> {
  const server = await startServerProcess({ dataDir, secret: SECRET, logDir: dataDir, label });
  servers.push(server);
  return server;
}

test.skipIf(!hasPrlimit())(
  "a server whose disk fills answers 507, stays up, recovers without a restart and loses nothing",
  async () => {
    const admin = await adminTokenFor(SECRET);
    let server = await start("before");
    const created = await httpCall(server.base, "POST", "/admin/tenants", {
      token: admin,
      body: { name: "Disk full" },
    });
    expect(created.status).toBe(201);
    const { tenant_id: tenantId, token } = created.body;
    const acked: string[] = [];
    const write = async (n: number) => {
      const res = await httpCall(server.base, "POST", "/memory/facts", {
        token,
        body: { content: `fact ${n} ${FILLER}`, tags: ["full"] },
      });
      if (res.status === 201) acked.push(res.body.id);
      return res;
    };
    for (let n = 0; n < 10; n++) expect((await write(n)).status).toBe(201);

    const file = join(dataDir, "tenants", tenantId, "data.mdb");
    limitFileSize(server.proc.pid, statSync(file).size + SLACK);
    let refused = await write(100);
    for (let n = 101; refused.status === 201 && n < 100 + MAX_WRITES; n++) refused = await write(n);
    expect({ status: refused.status, code: refused.body.code }).toEqual({
      status: 507,
      code: "insufficient_storage",
    });
    expect(JSON.stringify(refused.body)).not.toContain(dataDir);
    // Still up, still reading.
    const read = await httpCall(server.base, "GET", `/memory/facts/${acked[0]}`, { token });
    expect(read.status).toBe(200);
    expect((await httpCall(server.base, "GET", "/healthz")).status).toBe(200);

    liftFileSizeLimit(server.proc.pid);
    expect((await write(1000)).status).toBe(201);
    expect(server.proc.exitCode).toBeNull();

    await killHard(server);
    server = await start("after");
    const listed = await httpCall(server.base, "GET", "/memory/facts?limit=500&tag=full", { token });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((e: { id: string }) => e.id).sort()).toEqual([...acked].sort());
  },
  60_000,
);
