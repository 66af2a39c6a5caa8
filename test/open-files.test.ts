import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FILES_PER_TENANT } from "../src/runtime/open-files.ts";
import { filesOpenBy } from "./helpers/open-descriptors.ts";
import {
  adminTokenFor,
  type HttpAnswer,
  httpCall,
  killHard,
  type ServerProcess,
  startServerProcess,
} from "./helpers/server-process.ts";

/**
 * Open files are bounded: each open tenant vault holds file descriptors, so the runtime keeps an
 * LRU of open tenants sized from the open-file limit, and answers 503 `unavailable` with
 * Retry-After when no descriptor can be had, never a 500 or a crash. Real servers under `ulimit -n`.
 */
const SECRET = "open-files-secret-that-is-at-least-32-bytes!";
const parent = mkdtempSync(join(tmpdir(), "mrt-open-files-"));
const servers: ServerProcess[] = [];

afterAll(async () => {
  for (const s of servers) await killHard(s);
  rmSync(parent, { recursive: true, force: true });
});

async function start(label: string, openFiles: number, env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(parent, `${label}-`));
  const server = await startServerProcess({ dataDir, secret: SECRET, logDir: parent, label, openFiles, env });
  servers.push(server);
  return Object.assign(server, { dataDir });
}

interface Tally {
  statuses: Map<string, number>;
  retryAfterMissing: number;
  tenants: Array<{ tenant_id: string; token: string }>;
}

function count(t: Tally, what: string, res: HttpAnswer): void {
  const key = `${what} ${res.status}`;
  t.statuses.set(key, (t.statuses.get(key) ?? 0) + 1);
  if (res.status === 503 && !res.headers.get("retry-after")) t.retryAfterMissing++;
}

/**
 * Creates `perClient` tenants from each of `clients` clients, writing one entry into each;
 * `afterEach` runs after each tenant's write.
 */
async function createMany(
  server: ServerProcess,
  clients: number,
  perClient: number,
  afterEach: () => void = () => {},
): Promise<Tally> {
  const admin = await adminTokenFor(SECRET);
  const tally: Tally = { statuses: new Map(), retryAfterMissing: 0, tenants: [] };
  const client = async (c: number) => {
    for (let i = 0; i < perClient; i++) {
      const created = await httpCall(server.base, "POST", "/admin/tenants", {
        token: admin,
        body: { name: `fd ${c}-${i}` },
      });
      count(tally, "create", created);
      if (created.status !== 201) continue;
      tally.tenants.push(created.body);
      const wrote = await httpCall(server.base, "POST", "/memory/facts", {
        token: created.body.token,
        body: { content: `first fact of ${c}-${i}` },
      });
      count(tally, "write", wrote);
      afterEach();
    }
  };
  // /healthz is asked throughout, beside the load.
  let loading = true;
  const health = (async () => {
    while (loading) count(tally, "healthz", await httpCall(server.base, "GET", "/healthz"));
  })();
  let healthFailure: unknown;
  try {
    await Promise.all(Array.from({ length: clients }, (_, c) => client(c)));
  } finally {
    // Also when a client fails: the health loop must not outlive this test and fail the next one.
    loading = false;
    healthFailure = await health.then(
      () => undefined,
      (error: unknown) => error ?? "healthz failed",
    );
  }
  if (healthFailure !== undefined) throw healthFailure;
  return tally;
}

/**
 * The descriptors each tenant holds for as long as it is open, by tenant directory: its vault's
 * data and lock files, its vector rows and its vector graph (what FILES_PER_TENANT counts). Files
 * a save or an append opens for the call only (index files, the BM25 journal) are left out.
 */
function heldByTenant(files: string[], dataDir: string): Map<string, number> {
  const held = new Map<string, number>();
  const prefix = join(dataDir, "tenants/");
  for (const file of files) {
    if (!file.startsWith(prefix) || !/\/(data\.mdb|lock\.mdb|[^/]*\.usearch(\.f16)?)$/.test(file)) continue;
    const tenant = file.slice(prefix.length).split("/")[0]!;
    held.set(tenant, (held.get(tenant) ?? 0) + 1);
  }
  return held;
}

function statusesOf(t: Tally): Record<string, number> {
  return Object.fromEntries([...t.statuses].sort());
}

describe("a server under a low open-file limit", () => {
  test("many more tenants than fit open at once: every creation and write succeeds, healthz throughout", async () => {
    const server = await start("lru", 64);
    const limits = (await httpCall(server.base, "GET", "/healthz")).body.limits;
    expect(limits.open_files).toBe(64);
    expect(limits.max_open_tenants).toBeGreaterThan(0);
    const perClient = Math.ceil((limits.max_open_tenants * 6) / 8);
    const tally = await createMany(server, 8, perClient);
    const statuses = statusesOf(tally);
    expect(Object.keys(statuses).filter((k) => !/ (200|201|503)$/.test(k))).toEqual([]);
    expect(statuses["create 201"]).toBe(8 * perClient);
    expect(statuses["write 201"]).toBe(8 * perClient);
    expect(statuses["healthz 200"]).toBeGreaterThan(0);
    const after = (await httpCall(server.base, "GET", "/healthz")).body;
    expect(after.tenants).toBe(8 * perClient);
    expect(after.limits.open_tenants).toBeLessThanOrEqual(limits.max_open_tenants);
    // Tenants passivated to make room open again on demand, their entries intact.
    for (const t of tally.tenants.slice(0, 5)) {
      const listed = await httpCall(server.base, "GET", "/memory/facts", { token: t.token });
      expect(listed.status).toBe(200);
      expect(listed.body.items).toHaveLength(1);
    }
    expect(server.proc.exitCode).toBeNull();
  }, 60_000);

  test("with a bound set too high for the limit: creations succeed or answer 503 with Retry-After, never 500", async () => {
    const server = await start("no-room", 48, { MEMORY_RUNTIME_MAX_OPEN_TENANTS: "1000" });
    const tally = await createMany(server, 8, 10);
    const statuses = statusesOf(tally);
    expect(Object.keys(statuses).filter((k) => !/ (200|201|503)$/.test(k))).toEqual([]);
    expect(statuses["create 503"]).toBeGreaterThan(0);
    expect(tally.retryAfterMissing).toBe(0);
    expect(statuses["healthz 200"]).toBeGreaterThan(0);
    // A refused creation leaves no tenant behind: the count is the number of 201s.
    const health = (await httpCall(server.base, "GET", "/healthz")).body;
    expect(health.tenants).toBe(statuses["create 201"] ?? 0);
    expect(server.proc.exitCode).toBeNull();
  }, 60_000);
  test("400 tenants under ulimit -n 256: each created, written and read back, the process under its limit throughout", async () => {
    const server = await start("four-hundred", 256);
    const limits = (await httpCall(server.base, "GET", "/healthz")).body.limits;
    expect(limits.open_files).toBe(256);
    let mostOpen = 0;
    const sample = () => {
      mostOpen = Math.max(mostOpen, filesOpenBy(server.proc.pid).length);
    };
    const tally = await createMany(server, 8, 50, sample);
    const statuses = statusesOf(tally);
    expect(statuses["create 201"]).toBe(400);
    expect(statuses["write 201"]).toBe(400);
    expect(Object.keys(statuses).filter((k) => !/ 20[01]$/.test(k))).toEqual([]);
    // Every tenant read back, most of them reopened after passivation.
    const reads = new Map<number, number>();
    for (const t of tally.tenants) {
      const listed = await httpCall(server.base, "GET", "/memory/facts", { token: t.token });
      reads.set(listed.status, (reads.get(listed.status) ?? 0) + 1);
      if (listed.status === 200) expect(listed.body.items).toHaveLength(1);
      sample();
    }
    expect(Object.fromEntries(reads)).toEqual({ 200: 400 });
    expect(mostOpen).toBeLessThan(256);
    // What an open tenant holds is what the bound is derived from; a passivated one holds nothing.
    const health = (await httpCall(server.base, "GET", "/healthz")).body;
    expect(health.tenants).toBe(400);
    const held = heldByTenant(filesOpenBy(server.proc.pid), server.dataDir);
    expect(held.size).toBeLessThanOrEqual(limits.max_open_tenants);
    expect(Math.max(...held.values())).toBe(FILES_PER_TENANT);
    expect(server.proc.exitCode).toBeNull();
  }, 180_000);
});
