/**
 * Storage faults (issue 13, item 7): a full disk, simulated without root by lowering this test
 * process's own file-size limit (RLIMIT_FSIZE, test/helpers/file-size-limit.ts) to a little past
 * the end of an LMDB file: LMDB's commits then really fail on its write thread (a short write,
 * which LMDB reports as EIO, as it does on a disk that fills mid-write). Every write path answers
 * 507 `insufficient_storage`; a failed commit leaves nothing of its request in memory (pending
 * values, idempotency records, counters, the vector index); a denial that cannot be recorded is
 * not sent as a 403 (503, as for any denial that cannot be audited); a tenant the system store
 * cannot record leaves no vault behind; once space exists writes succeed without a restart, and a
 * restart finds every acknowledged entry.
 *
 * The limit never sits at a page boundary and only the file at the limit is written while it
 * holds: a write starting past it fails with EFBIG, whose message lmdb-js 3.5.6 formats into a
 * 100-byte buffer that long numbers overflow (src/vault/disk-space.ts keeps real disks from it).
 *
 * The limit is this process's own: the scenario runs in a `bun test` of its own, started by
 * disk-full.test.ts (MRT_DISK_FULL_SCENARIO=1), never inside the whole suite's process, whose
 * other suites' files would be limited too.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tenantDir } from "../../src/vault/tenant-paths.ts";
import { readJson } from "../helpers/api.ts";
import { hasPrlimit, liftFileSizeLimit, limitFileSize } from "../helpers/file-size-limit.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";
import { setSecrets } from "../helpers/webhooks.ts";
import { jobEvent } from "../soak/payloads.ts";

const DATA_TOKEN = "disk-full-data-token";
const FILLER = "disk ".repeat(1600);
/** Bound of every loop that writes until the disk refuses. */
const MAX_WRITES = 300;
/** How far past a file's end its limit sits: less than a page, so the next page written is cut short. */
const SLACK = 1000;

const inOwnProcess = process.env.MRT_DISK_FULL_SCENARIO === "1";
// Past its file-size limit this process must get EFBIG, not SIGXFSZ's default (the end of it).
const ignoreXfsz = () => undefined;

let own: string;
let h: Harness;
let t: { tenantId: string; token: string };
/** Every entry id a 201 acknowledged, by tag. */
const acked = new Map<string, string[]>();

const dataFile = (tenantId: string) => join(tenantDir(h.dataDir, tenantId), "data.mdb");
const systemFile = () => join(h.dataDir, "system", "data.mdb");

async function setUp(): Promise<void> {
  process.on("SIGXFSZ", ignoreXfsz);
  own = mkdtempSync(join(tmpdir(), "mrt-disk-full-"));
  h = await startHarness({ dataDir: join(own, "data") });
  const created = await h.createTenant();
  t = { tenantId: created.tenant_id, token: created.token };
  setSecrets(h, t.tenantId, { DATA_WEBHOOK_TOKEN: DATA_TOKEN });
  for (let n = 0; n < 10; n++) expect((await write("before", n)).status).toBe(201);
}

async function tearDown(): Promise<void> {
  liftFileSizeLimit(process.pid);
  await h.close();
  process.off("SIGXFSZ", ignoreXfsz);
  rmSync(own, { recursive: true, force: true });
}

async function write(tag: string, n: number, headers: Record<string, string> = {}): Promise<Response> {
  const res = await h.call("POST", "/memory/facts", {
    token: t.token,
    headers,
    body: { content: `${tag} ${n} ${FILLER}`, tags: [tag] },
  });
  if (res.status === 201) {
    const id = (await readJson(res.clone() as Response)).id;
    acked.set(tag, [...(acked.get(tag) ?? []), id]);
  }
  return res;
}

/** The tenant's file (the largest there is) cannot grow by a page any more. */
function diskFullForTheTenant(): void {
  const size = statSync(dataFile(t.tenantId)).size;
  expect(size).toBeGreaterThan(statSync(systemFile()).size + 4 * 4096);
  limitFileSize(process.pid, size + SLACK);
}

/** The system store's file cannot grow by a page any more (the tenant's, larger, is not written then). */
function diskFullForTheSystemStore(): void {
  limitFileSize(process.pid, statSync(systemFile()).size + SLACK);
}

/** Writes until the first 507 (commits first reuse the file's free pages). */
async function writeUntilFull(tag: string): Promise<Response> {
  for (let n = 0; n < MAX_WRITES; n++) {
    const res = await write(tag, n);
    if (res.status !== 201) return res;
  }
  throw new Error(`no 507 after ${MAX_WRITES} writes with the tenant's file unable to grow`);
}

async function expectFull(res: Response): Promise<void> {
  const body = await expectProblem(res, 507, "insufficient_storage");
  expect(JSON.stringify(body)).not.toContain(own);
  expect(body.detail).not.toMatch(/\/|\.mdb|position|page/i);
}

async function listed(tag: string): Promise<string[]> {
  const { status, body } = await h.json("GET", `/memory/facts?limit=500&tag=${tag}`, { token: t.token });
  expect(status).toBe(200);
  return body.items.map((e: { id: string }) => e.id);
}

async function expectAllAckedReadable(): Promise<number> {
  const ids = [...acked.values()].flat();
  const statuses = await Promise.all(
    ids.map(async (id) => (await h.call("GET", `/memory/facts/${id}`, { token: t.token })).status),
  );
  expect(statuses.filter((s) => s !== 200)).toEqual([]);
  return ids.length;
}

/** Entries, counters and vector index agree with each other and with what was acknowledged. */
async function expectConsistent(): Promise<void> {
  const total = [...acked.values()].flat().length;
  const health = await h.json("GET", `/tenants/${t.tenantId}/healthz`, { token: h.adminToken });
  expect({ entries: health.body.vault.entries, vectors: health.body.index.vectors }).toEqual({
    entries: total,
    vectors: total,
  });
  const today = new Date().toISOString().slice(0, 10);
  const stats = await h.runtime.services
    .tenant(t.tenantId)
    .ask({ type: "tenant.stats", fromDay: today, toDay: today });
  expect(stats.entries_per_category.fact).toBe(total);
  expect(stats.writes_per_day.reduce((sum, d) => sum + d.writes, 0)).toBe(total);
}

function deliverJob(runId: string): Promise<Response> {
  return h.call("POST", `/webhooks/data/${t.tenantId}`, {
    headers: { authorization: `Bearer ${DATA_TOKEN}` },
    body: jobEvent(runId),
  });
}

describe.skipIf(!inOwnProcess || !hasPrlimit())("a full disk (RLIMIT_FSIZE on this process)", () => {
  beforeAll(setUp);
  afterEach(() => liftFileSizeLimit(process.pid));
  afterAll(tearDown);

  test("single writes: 507 once the file cannot grow; nothing of a refused write stays in memory", async () => {
    diskFullForTheTenant();
    await expectFull(await writeUntilFull("single"));
    const keyed = await write("keyed", 0, { "idempotency-key": "refused-key" });
    await expectFull(keyed);
    await expectFull(await write("keyed", 0, { "idempotency-key": "refused-key" }));
    expect(await listed("keyed")).toEqual([]);
    await expectAllAckedReadable();
    await expectConsistent();

    liftFileSizeLimit(process.pid);
    // Space again, no restart: the refused key was never recorded, so its write happens now, once.
    const first = await write("keyed", 0, { "idempotency-key": "refused-key" });
    expect(first.status).toBe(201);
    const replay = await h.json("POST", "/memory/facts", {
      token: t.token,
      headers: { "idempotency-key": "refused-key" },
      body: { content: `keyed 0 ${FILLER}`, tags: ["keyed"] },
    });
    expect({ status: replay.status, id: replay.body.id }).toEqual({
      status: 200,
      id: (await readJson(first)).id,
    });
    await expectConsistent();
  });

  test("a batch and a webhook delivery: 507, nothing half-written, no dead letter; redelivered once after", async () => {
    diskFullForTheTenant();
    await writeUntilFull("filler");
    const batch = await h.call("POST", "/memory/facts/batch", {
      token: t.token,
      body: { entries: [0, 1, 2, 3].map((n) => ({ content: `batch ${n} ${FILLER}`, tags: ["batch"] })) },
    });
    await expectFull(batch);
    await expectFull(await deliverJob("disk-full-run"));
    expect(await listed("batch")).toEqual([]);
    expect(await listed("job")).toEqual([]);
    const dead = await h.json("GET", `/admin/webhooks/dead-letters/${t.tenantId}`, { token: h.adminToken });
    expect(dead.body.dead_letters).toEqual([]);
    await expectConsistent();

    liftFileSizeLimit(process.pid);
    const redelivered = await deliverJob("disk-full-run");
    expect({ status: redelivered.status, accepted: (await readJson(redelivered)).accepted }).toEqual({
      status: 200,
      accepted: 1,
    });
    expect((await readJson(deliverJob("disk-full-run"))).duplicates).toBe(1);
    expect((await listed("job")).length).toBe(1);
    acked.set("job", await listed("job"));
  });

  test("the system store's disk full: a denial 503 (never an unrecorded 403), a tenant 507 and no vault left", async () => {
    const noRoles = await h.mint(t.tenantId, [], "no-roles-agent");
    diskFullForTheSystemStore();
    // Commits first reuse the file's free pages: each denial recorded meanwhile is a 403.
    let recorded = 0;
    let denied = await h.call("GET", "/memory/facts", { token: noRoles });
    while (denied.status === 403 && recorded < MAX_WRITES) {
      recorded++;
      denied = await h.call("GET", "/memory/facts", { token: noRoles });
    }
    await expectProblem(denied, 503, "unavailable");
    let created = 0;
    let creation = await h.call("POST", "/admin/tenants", {
      token: h.adminToken,
      body: { name: "No room 0" },
    });
    while (creation.status === 201 && created < MAX_WRITES) {
      created++;
      creation = await h.call("POST", "/admin/tenants", {
        token: h.adminToken,
        body: { name: `No room ${created}` },
      });
    }
    await expectFull(creation);
    // Reads need no space.
    await expectAllAckedReadable();

    liftFileSizeLimit(process.pid);
    // Every tenant listed has its vault, and no vault is left of the refused one.
    const tenants = (await h.json("GET", "/admin/tenants?limit=500", { token: h.adminToken })).body.tenants;
    expect(readdirSync(join(h.dataDir, "tenants")).sort()).toEqual(
      tenants.map((x: { tenant_id: string }) => x.tenant_id).sort(),
    );
    expect(tenants.map((x: { name: string }) => x.name)).not.toContain(`No room ${created}`);
    await expectProblem(await h.call("GET", "/memory/facts", { token: noRoles }), 403, "forbidden");
    // Exactly the 403s sent are in the audit log: the refused one is not, the one after is.
    const denials = await h.json("GET", `/admin/audit/denials/${t.tenantId}`, { token: h.adminToken });
    expect(denials.body.denials.length).toBe(recorded + 1);
    const retried = await h.call("POST", "/admin/tenants", {
      token: h.adminToken,
      body: { name: `No room ${created}` },
    });
    expect(retried.status).toBe(201);
  });

  test("after a restart every acknowledged entry is there, once, and the counters agree", async () => {
    await h.restart();
    const count = await expectAllAckedReadable();
    for (const [tag, ids] of acked)
      expect({ tag, ids: (await listed(tag)).sort() }).toEqual({ tag, ids: [...ids].sort() });
    await expectConsistent();
    // The 10 written first, the keyed write, the redelivered job and the writes before each refusal.
    expect(count).toBeGreaterThanOrEqual(12);
  });
});
