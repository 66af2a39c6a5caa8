/**
 * Storage faults (issue 13, item 7): a tenant vault at its size ceiling (MEMORY_RUNTIME_VAULT_MAX_MB,
 * here 1 MiB) answers every write path 507 `insufficient_storage` with nothing written, keeps every
 * acknowledged entry readable (also after a restart), and takes writes again once space exists:
 * without a restart after an erasure (its compaction shrinks the file), with a restart when the
 * ceiling is raised (the configuration is read at start).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readJson } from "../helpers/api.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";
import { setSecrets } from "../helpers/webhooks.ts";
import { jobEvent } from "../soak/payloads.ts";

const DATA_TOKEN = "ceiling-data-token";
/** ~8 KiB a fact: a 1 MiB vault is full after ~100 of them. */
const FILLER = "storage ".repeat(1000);
/** Bound of every fill loop: far more writes than 1 MiB holds. */
const MAX_WRITES = 400;

const own = mkdtempSync(join(tmpdir(), "mrt-ceiling-"));
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ dataDir: join(own, "data"), env: { MEMORY_RUNTIME_VAULT_MAX_MB: "1" } });
});
afterAll(async () => {
  await h.close();
  rmSync(own, { recursive: true, force: true });
});

interface Tenant {
  tenantId: string;
  token: string;
}

async function newTenant(): Promise<Tenant> {
  const { tenant_id: tenantId, token } = await h.createTenant();
  setSecrets(h, tenantId, { DATA_WEBHOOK_TOKEN: DATA_TOKEN });
  return { tenantId, token };
}

function writeFact(t: Tenant, n: number, tag = "fill"): Promise<Response> {
  return h.call("POST", "/memory/facts", {
    token: t.token,
    body: { content: `fact ${n} ${FILLER}`, tags: [tag] },
  });
}

/** Writes until the first 507; answers the ids acknowledged before it and that 507. */
async function fill(t: Tenant, tag = "fill"): Promise<{ acked: string[]; refusal: Response }> {
  const acked: string[] = [];
  for (let n = 0; n < MAX_WRITES; n++) {
    const res = await writeFact(t, n, tag);
    if (res.status !== 201) return { acked, refusal: res };
    acked.push((await readJson(res)).id);
  }
  throw new Error(`no 507 after ${MAX_WRITES} writes of ~8 KiB into a 1 MiB vault`);
}

async function expectFull(res: Response): Promise<void> {
  const body = await expectProblem(res, 507, "insufficient_storage");
  // The problem names no file, path or directory.
  expect(JSON.stringify(body)).not.toContain(own);
  expect(body.detail).not.toMatch(/\/|data\.mdb|lock\.mdb/);
}

async function expectReadable(t: Tenant, ids: string[]): Promise<void> {
  const statuses = await Promise.all(
    ids.map(async (id) => (await h.call("GET", `/memory/facts/${id}`, { token: t.token })).status),
  );
  expect(statuses.filter((s) => s !== 200)).toEqual([]);
}

async function listed(t: Tenant, tag: string): Promise<string[]> {
  const { status, body } = await h.json("GET", `/memory/facts?limit=500&tag=${tag}`, { token: t.token });
  expect(status).toBe(200);
  return body.items.map((e: { id: string }) => e.id);
}

function deliverJob(t: Tenant, runId: string): Promise<Response> {
  return h.call("POST", `/webhooks/data/${t.tenantId}`, {
    headers: { authorization: `Bearer ${DATA_TOKEN}` },
    body: jobEvent(runId),
  });
}

describe("a tenant vault at its size ceiling", () => {
  let t: Tenant;
  let acked: string[];

  const keyedBody = { content: "written under a key", tags: ["keyed"] };
  let keyedId: string;

  beforeAll(async () => {
    t = await newTenant();
    const keyed = await h.json("POST", "/memory/facts", {
      token: t.token,
      headers: { "idempotency-key": "before-full" },
      body: keyedBody,
    });
    expect(keyed.status).toBe(201);
    keyedId = keyed.body.id;
    const filled = await fill(t);
    acked = filled.acked;
    await expectFull(filled.refusal);
  });

  test("every write path answers 507 and keeps nothing of the request", async () => {
    expect(acked.length).toBeGreaterThan(10);
    const batch = await h.call("POST", "/memory/facts/batch", {
      token: t.token,
      body: {
        entries: [
          { content: "batch one", tags: ["late"] },
          { content: "batch two", tags: ["late"] },
        ],
      },
    });
    await expectFull(batch);
    const keyed = await h.call("POST", "/memory/facts", {
      token: t.token,
      headers: { "idempotency-key": "ceiling-key" },
      body: { content: "keyed write", tags: ["late"] },
    });
    await expectFull(keyed);
    await expectFull(await deliverJob(t, "ceiling-run"));
    expect(await listed(t, "late")).toEqual([]);
    // The delivery left no dead letter either: the platform's retry is the only copy.
    const dead = await h.json("GET", `/admin/webhooks/dead-letters/${t.tenantId}`, { token: h.adminToken });
    expect({ status: dead.status, dead: dead.body.dead_letters }).toEqual({ status: 200, dead: [] });
  });

  test("every acknowledged entry stays readable and listed", async () => {
    await expectReadable(t, [keyedId, ...acked]);
    expect((await listed(t, "fill")).sort()).toEqual([...acked].sort());
    const health = await h.json("GET", `/tenants/${t.tenantId}/healthz`, { token: h.adminToken });
    expect(health.body.vault.entries).toBe(acked.length + 1);
  });

  test("search and the replay of an acknowledged keyed write are still served (they write nothing)", async () => {
    const search = await h.json("POST", "/memory/search", { token: t.token, body: { query: "fact 3" } });
    expect(search.status).toBe(200);
    expect(search.body.results.length).toBeGreaterThan(0);
    const replayed = await h.json("POST", "/memory/facts", {
      token: t.token,
      headers: { "idempotency-key": "before-full" },
      body: keyedBody,
    });
    expect({ status: replayed.status, id: replayed.body.id }).toEqual({ status: 200, id: keyedId });
  });
});

describe("recovery", () => {
  test("an erasure frees space: writes succeed again without a restart", async () => {
    const t = await newTenant();
    const { acked, refusal } = await fill(t, "old");
    await expectFull(refusal);
    const keep = acked.slice(0, 5);
    const erase = await h.json("POST", `/admin/tenants/${t.tenantId}/erase`, {
      token: h.adminToken,
      body: { ids: acked.slice(5) },
    });
    expect({ status: erase.status, erased: erase.body.erased?.length }).toEqual({
      status: 200,
      erased: acked.length - 5,
    });
    const after = await writeFact(t, 10_000, "new");
    expect(after.status).toBe(201);
    await expectReadable(t, keep);
    const delivered = await deliverJob(t, "after-erase");
    expect(delivered.status).toBe(200);
    expect((await readJson(delivered)).accepted).toBe(1);
  });

  test("acknowledged entries survive a restart; a raised ceiling (read at start) takes writes again", async () => {
    const t = await newTenant();
    const { acked, refusal } = await fill(t, "kept");
    await expectFull(refusal);
    await h.restart();
    await expectReadable(t, acked);
    // Same ceiling after the restart: still full, still nothing written.
    await expectFull(await writeFact(t, 20_000, "kept"));
    await expectFull(await deliverJob(t, "refused-run"));
    h.env.MEMORY_RUNTIME_VAULT_MAX_MB = "64";
    try {
      await h.restart();
      expect((await writeFact(t, 20_000, "kept")).status).toBe(201);
      // The delivery refused with 507 and sent again by its platform is written once.
      const redelivered = await deliverJob(t, "refused-run");
      expect((await readJson(redelivered)).accepted).toBe(1);
      const duplicate = await deliverJob(t, "refused-run");
      expect((await readJson(duplicate)).duplicates).toBe(1);
      await expectReadable(t, acked);
      expect((await listed(t, "kept")).length).toBe(acked.length + 1);
      expect((await listed(t, "job")).length).toBe(1);
    } finally {
      h.env.MEMORY_RUNTIME_VAULT_MAX_MB = "1";
      await h.restart();
    }
  });
});
