/**
 * One owner per port and per data directory (docs/operations.md#one-owner-per-port-and-data-directory),
 * with real processes. A second server on a port in use exits 78 naming the address, and every
 * request meanwhile is answered by the first (before, both listened with SO_REUSEPORT and the
 * kernel split the requests between them). A second server, cluster node or demo on a data
 * directory in use exits naming the directory and the holder's pid (before, it started and wrote
 * beside the first, which never saw its writes). A holder killed with SIGKILL leaves no stale lock:
 * the next start on its directory succeeds and finds its data.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOCK_FILE } from "../src/vault/data-dir-lock.ts";
import { freePort } from "./helpers/free-port.ts";
import { TEST_SECRET } from "./helpers/harness.ts";
import {
  adminTokenFor,
  httpCall,
  killHard,
  type ServerProcess,
  startServerProcess,
} from "./helpers/server-process.ts";
import { cleanEnv, type Finished, run } from "./helpers/spawn.ts";

let root: string;
const started: ServerProcess[] = [];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "mrt-one-owner-"));
});

afterAll(async () => {
  await Promise.all(started.map(killHard));
  rmSync(root, { recursive: true, force: true });
});

async function serve(label: string, dataDir: string): Promise<ServerProcess> {
  const server = await startServerProcess({ dataDir, secret: TEST_SECRET, logDir: root, label });
  started.push(server);
  return server;
}

/** A second server run to its end (it is expected to refuse its start). */
function startAgain(env: Record<string, string>, entry = ["src/index.ts"]): Promise<Finished> {
  const vars = { MEMORY_RUNTIME_JWT_SECRET: TEST_SECRET, HOST: "127.0.0.1", MEMORY_RUNTIME_LOG: "off" };
  return run([process.execPath, "run", ...entry], cleanEnv({ ...vars, ...env }));
}

function portOf(server: ServerProcess): string {
  return new URL(server.base).port;
}

describe("one process per port", () => {
  test("a second server on the port exits 78 naming the address; the first answers every request", async () => {
    const first = await serve("port-first", join(root, "port-first"));
    const own = (await httpCall(first.base, "GET", "/healthz")).body.started_at;
    const port = portOf(first);
    const second = startAgain({ PORT: port, MEMORY_RUNTIME_DATA_DIR: join(root, "port-second") });
    // Asked while the second starts and until it has exited: each answer is the first's.
    let exited = false;
    void second.then(() => {
      exited = true;
    });
    const answeredBy: string[] = [];
    while (!exited || answeredBy.length < 16)
      answeredBy.push((await httpCall(first.base, "GET", "/healthz")).body.started_at);
    const refused = await second;
    expect(refused.code).toBe(78);
    expect(refused.stderr).toContain(`127.0.0.1:${port} is in use`);
    expect(refused.stdout).not.toContain("listening");
    expect(new Set(answeredBy)).toEqual(new Set([own]));
    expect(first.proc.exitCode).toBeNull();
  }, 60_000);

  test("a cluster node on a port in use refuses before it joins (no NATS is asked)", async () => {
    const first = await serve("port-node-first", join(root, "port-node-first"));
    const node = await startAgain({
      PORT: portOf(first),
      MEMORY_RUNTIME_DATA_DIR: join(root, "port-node"),
      // Nothing listens there: a node that tried to join would exit 69 (cannot join), not 78.
      MEMORY_RUNTIME_CLUSTER_URL: `nats://127.0.0.1:${freePort()}`,
      MEMORY_RUNTIME_NODE_ID: "second",
    });
    expect(node.code).toBe(78);
    expect(node.stderr).toContain(`127.0.0.1:${portOf(first)} is in use`);
  }, 60_000);
});

/** A server on a directory of its own, holding one tenant. */
async function holding(label: string): Promise<{ dataDir: string; holder: ServerProcess; tenantId: string }> {
  const dataDir = join(root, label);
  const holder = await serve(label, dataDir);
  const created = await httpCall(holder.base, "POST", "/admin/tenants", {
    token: await adminTokenFor(TEST_SECRET),
    body: { name: label },
  });
  expect(created.status).toBe(201);
  return { dataDir, holder, tenantId: created.body.tenant_id };
}

async function tenantNames(server: ServerProcess): Promise<string[]> {
  const listed = await httpCall(server.base, "GET", "/admin/tenants", {
    token: await adminTokenFor(TEST_SECRET),
  });
  expect(listed.status).toBe(200);
  return listed.body.tenants.map((t: { name: string }) => t.name);
}

describe("one live owner per data directory", () => {
  let dataDir: string;
  let holder: ServerProcess;

  beforeAll(async () => {
    ({ dataDir, holder } = await holding("held"));
  }, 60_000);

  const inUse = () => `the data directory ${dataDir} is in use by process ${holder.proc.pid}`;

  test("the holder's pid is in the lock file", () => {
    expect(readFileSync(join(dataDir, LOCK_FILE), "utf8")).toBe(`${holder.proc.pid}\n`);
  });

  test("a second server on the directory (another port) exits 78 naming it and the holder's pid", async () => {
    const second = await startAgain({ PORT: "0", MEMORY_RUNTIME_DATA_DIR: dataDir });
    expect(second.code).toBe(78);
    expect(second.stderr).toContain(inUse());
    expect(second.stdout).not.toContain("listening");
    // The holder is untouched: it still serves its tenant.
    expect(await tenantNames(holder)).toEqual(["held"]);
  }, 60_000);

  test("a cluster node on the directory exits 78 naming it, before it joins", async () => {
    const node = await startAgain({
      PORT: "0",
      MEMORY_RUNTIME_DATA_DIR: dataDir,
      MEMORY_RUNTIME_CLUSTER_URL: `nats://127.0.0.1:${freePort()}`,
      MEMORY_RUNTIME_NODE_ID: "second",
    });
    expect(node.code).toBe(78);
    expect(node.stderr).toContain(inUse());
  }, 60_000);

  test("`bun run demo` on the directory refuses, naming it and the holder's pid", async () => {
    const demo = await startAgain({}, [
      "scripts/demo.ts",
      "--seed-only",
      "--days",
      "1",
      "--data-dir",
      dataDir,
    ]);
    expect(demo.code).toBe(1);
    expect(demo.stderr).toContain(inUse());
    expect(demo.stdout).toBe("");
  }, 60_000);
});

describe("a holder killed with SIGKILL", () => {
  test("leaves no stale lock: the next start on its directory succeeds and finds its data", async () => {
    const { dataDir, holder } = await holding("killed");
    await killHard(holder);
    const again = await serve("killed-again", dataDir);
    expect(readFileSync(join(dataDir, LOCK_FILE), "utf8")).toBe(`${again.proc.pid}\n`);
    expect(await tenantNames(again)).toEqual(["killed"]);
  }, 60_000);
});
