import { afterAll, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pollUntil } from "./helpers/poll.ts";
import {
  adminTokenFor,
  httpCall,
  killHard,
  type ServerProcess,
  startServerProcess,
} from "./helpers/server-process.ts";

/**
 * A resume cut short by `kill -9` (docs/webhook-operations.md): the real server holds 600 events
 * of a paused source, is killed while the resume releases them, and is started again on the same
 * data directory: the upkeep continues the resume at start, and every held event is applied once.
 */
const SECRET = "resume-restart-secret-that-is-32-bytes-long!!";
const TOKEN = "warehouse-token-of-the-restart-test";
const EVENTS = 600;
const dataDir = mkdtempSync(join(tmpdir(), "mrt-resume-restart-"));
const secretsFile = join(dataDir, "secrets.env");
const servers: ServerProcess[] = [];

afterAll(async () => {
  for (const s of servers) await killHard(s);
  rmSync(dataDir, { recursive: true, force: true });
});

async function startServer(label: string): Promise<ServerProcess> {
  const env = { MEMORY_RUNTIME_SECRETS_FILE: secretsFile };
  const server = await startServerProcess({ dataDir, secret: SECRET, logDir: dataDir, label, env });
  servers.push(server);
  return server;
}

/** Every delivery log record via resume, oldest page first (the log pages newest first). */
async function released(base: string, admin: string, tenantId: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = "";
  for (let page = 0; page < 20 && cursor !== null; page++) {
    const query: string = `?outcome=accepted&limit=1000${cursor ? `&cursor=${cursor}` : ""}`;
    const { body } = await httpCall(base, "GET", `/admin/webhooks/deliveries/${tenantId}${query}`, {
      token: admin,
    });
    ids.push(
      ...body.deliveries
        .filter((d: { via: string }) => d.via === "resume")
        .map((d: { event_id: string }) => d.event_id),
    );
    cursor = body.next_cursor;
  }
  return ids;
}

async function warehouseSource(base: string, admin: string, tenantId: string) {
  const { body } = await httpCall(base, "GET", `/admin/webhooks/sources/${tenantId}`, { token: admin });
  return body.sources.find((s: { source: string }) => s.source === "warehouse");
}

test("kill -9 during a resume, then a restart: every held event is applied exactly once", async () => {
  writeFileSync(secretsFile, "");
  chmodSync(secretsFile, 0o600);
  const admin = await adminTokenFor(SECRET);
  const first = await startServer("first");
  const created = await httpCall(first.base, "POST", "/admin/tenants", {
    token: admin,
    body: { name: "Restart Co" },
  });
  const tenantId: string = created.body.tenant_id;
  writeFileSync(secretsFile, `WAREHOUSE_WEBHOOK_TOKEN_${tenantId}=${TOKEN}\n`);
  expect((await httpCall(first.base, "POST", "/admin/reload", { token: admin })).status).toBe(200);

  const sources = `/admin/webhooks/sources/${tenantId}/warehouse`;
  expect((await httpCall(first.base, "POST", `${sources}/pause`, { token: admin })).body.status).toBe(
    "paused",
  );
  const ids = Array.from({ length: EVENTS }, (_, i) => `row-${String(i).padStart(4, "0")}`);
  for (let i = 0; i < EVENTS; i += 50) {
    const rows = ids
      .slice(i, i + 50)
      .map((id) => ({ event_id: id, kind: "fact", content: `held row ${id}` }));
    const held = await httpCall(first.base, "POST", `/webhooks/warehouse/${tenantId}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
      body: rows,
    });
    expect(held).toMatchObject({ status: 202, body: { held: 50 } });
  }

  // The resume runs; the server is killed once some events are released, well before all are.
  void httpCall(first.base, "POST", `${sources}/resume`, { token: admin }).catch(() => undefined);
  const before = await pollUntil(
    () => released(first.base, admin, tenantId),
    (r) => r.length >= 20,
    { timeoutMs: 20_000, intervalMs: 5 },
  );
  await killHard(first);
  expect(before.length).toBeLessThan(EVENTS);

  const second = await startServer("second");
  // The upkeep's first pass, at start, continues the resume.
  const done = await pollUntil(
    () => warehouseSource(second.base, admin, tenantId),
    (s) => s?.status === "active",
    { timeoutMs: 60_000, intervalMs: 20 },
  );
  expect(done).toMatchObject({ status: "active", resuming: false, held: 0 });
  const applied = await released(second.base, admin, tenantId);
  expect(applied.length).toBe(EVENTS);
  expect(new Set(applied).size).toBe(EVENTS);

  // Each event's entry is there once: the facts, paged.
  const token = (
    await httpCall(second.base, "POST", `/admin/jwt/${tenantId}`, {
      token: admin,
      body: { roles: ["tenant_admin"] },
    })
  ).body.token;
  const written: string[] = [];
  let cursor: string | null = "";
  for (let page = 0; page < 10 && cursor !== null; page++) {
    const query: string = `?limit=500${cursor ? `&cursor=${cursor}` : ""}`;
    const { body } = await httpCall(second.base, "GET", `/memory/facts${query}`, { token });
    written.push(...body.items.map((f: { source: { event_id: string } }) => f.source.event_id));
    cursor = body.next_cursor;
  }
  expect(written.sort()).toEqual(ids);
}, 120_000);
