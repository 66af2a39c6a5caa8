import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seededRandom, testSeed } from "./helpers/random.ts";
import {
  adminTokenFor,
  httpCall,
  killHard,
  type ServerProcess,
  startServerProcess,
} from "./helpers/server-process.ts";

/**
 * No acknowledgement precedes its commit. Identical requests arrive together (same canonical
 * content, or the same Idempotency-Key), and identical webhook deliveries of one event arrive
 * together, so later copies are answered from the first copy's pending write; the real server is
 * killed with SIGKILL after a random number of acknowledgements, several cycles on one data
 * directory. After each restart every id answered 200/201 is readable and every event answered
 * 200 (accepted or duplicate) has its entry and is still known as delivered.
 */
const SECRET = "crash-loop-secret-that-is-at-least-32-bytes!";
const WEBHOOK_TOKEN = "crash-loop-webhook-token";
const CYCLES = Number(process.env.CRASH_CYCLES ?? 3);
const WORKERS = 12;
const COPIES = 3;
const seed = testSeed();
const random = seededRandom(seed);
const dataDir = mkdtempSync(join(tmpdir(), "mrt-crash-loop-"));
const servers: ServerProcess[] = [];

afterAll(async () => {
  for (const s of servers) await killHard(s);
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(label: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startServerProcess({ dataDir, secret: SECRET, logDir: dataDir, label, env });
  servers.push(server);
  return server;
}

/** What clients were told exists: entry ids (by category path) and owned webhook events. */
const ackedEntries = new Set<string>();
const ownedEvents = new Set<string>();

function jobEvent(runId: string) {
  return {
    event_type: "jobs.on_success",
    workspace_id: 7,
    run: { run_id: runId, run_duration: 1200 },
    job: { job_id: 3, name: "nightly" },
  };
}

interface Traffic {
  base: string;
  token: string;
  tenantId: string;
  cycle: number;
}

/** One burst of COPIES identical requests; returns how many were acknowledged. */
async function burst(t: Traffic, n: number): Promise<number> {
  const kind = Math.floor(random() * 3);
  const label = `c${t.cycle}-n${n}`;
  const copies = Array.from({ length: COPIES }, async () => {
    try {
      if (kind === 2) {
        const res = await httpCall(t.base, "POST", `/webhooks/data/${t.tenantId}`, {
          headers: { authorization: `Bearer ${WEBHOOK_TOKEN}` },
          body: jobEvent(label),
        });
        if (res.status !== 200) return 0;
        ownedEvents.add(`jobs.on_success:${label}`);
        return 1;
      }
      const headers: Record<string, string> = kind === 1 ? { "idempotency-key": `key-${label}` } : {};
      const res = await httpCall(t.base, "POST", "/memory/facts", {
        token: t.token,
        headers,
        body: { content: `identical ${label}`, tags: ["crash-loop"] },
      });
      if (res.status !== 200 && res.status !== 201) return 0;
      ackedEntries.add(res.body.id);
      return 1;
    } catch {
      return 0; // the connection died with the server: never acknowledged
    }
  });
  return (await Promise.all(copies)).reduce<number>((a, b) => a + b, 0);
}

/** Sends bursts from WORKERS clients and kills the server after `killAfter` acknowledgements. */
async function trafficUntilKill(t: Traffic, server: ServerProcess, killAfter: number): Promise<number> {
  let acks = 0;
  let n = 0;
  let killed = false;
  const worker = async () => {
    while (!killed && n < 5000) {
      const got = await burst(t, n++);
      acks += got;
      if (!killed && acks >= killAfter) {
        killed = true;
        server.proc.kill(9);
      }
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));
  await server.proc.exited;
  return acks;
}

/** Every fact of the tenant's list, by id, with its source event id. */
async function allFacts(base: string, token: string): Promise<Map<string, string | undefined>> {
  const facts = new Map<string, string | undefined>();
  let cursor: string | null = null;
  do {
    const page = await httpCall(base, "GET", `/memory/facts?limit=500${cursor ? `&cursor=${cursor}` : ""}`, {
      token,
    });
    expect(page.status).toBe(200);
    for (const e of page.body.items) facts.set(e.id, e.source?.event_id);
    cursor = page.body.next_cursor;
  } while (cursor);
  return facts;
}

test(`every acknowledged write and delivery survives kill -9 (${CYCLES} cycles, seed ${seed})`, async () => {
  const admin = await adminTokenFor(SECRET);
  const first = await start("setup");
  const created = await httpCall(first.base, "POST", "/admin/tenants", {
    token: admin,
    body: { name: "Crash Co" },
  });
  expect(created.status).toBe(201);
  const { tenant_id: tenantId, token } = created.body;
  first.proc.kill("SIGTERM");
  expect(await first.proc.exited).toBe(0);
  const env = { [`DATA_WEBHOOK_TOKEN_${tenantId}`]: WEBHOOK_TOKEN };

  for (let cycle = 1; cycle <= CYCLES; cycle++) {
    const server = await start(`cycle-${cycle}`, env);
    const killAfter = 30 + Math.floor(random() * 270);
    const acks = await trafficUntilKill({ base: server.base, token, tenantId, cycle }, server, killAfter);
    expect(server.proc.signalCode).toBe("SIGKILL");
    expect(acks).toBeGreaterThanOrEqual(killAfter);

    const again = await start(`cycle-${cycle}-check`, env);
    const facts = await allFacts(again.base, token);
    const lost = [...ackedEntries].filter((id) => !facts.has(id));
    expect({ cycle, seed, lost }).toEqual({ cycle, seed, lost: [] });
    for (const id of [...ackedEntries].slice(-20)) {
      expect((await httpCall(again.base, "GET", `/memory/facts/${id}`, { token })).status).toBe(200);
    }
    const eventsWithEntries = new Set([...facts.values()].filter((e) => e !== undefined));
    const unowned = [...ownedEvents].filter((ev) => !eventsWithEntries.has(ev));
    expect({ cycle, seed, unowned }).toEqual({ cycle, seed, unowned: [] });
    // A redelivery of an owned event is still a duplicate: its dedupe record committed too.
    const runId = [...ownedEvents].at(-1)?.split(":")[1];
    if (runId) {
      const redelivered = await httpCall(again.base, "POST", `/webhooks/data/${tenantId}`, {
        headers: { authorization: `Bearer ${WEBHOOK_TOKEN}` },
        body: jobEvent(runId),
      });
      expect(redelivered.body).toMatchObject({ accepted: 0, duplicates: 1 });
    }
    again.proc.kill("SIGTERM");
    expect(await again.proc.exited).toBe(0);
  }
  expect(ackedEntries.size).toBeGreaterThan(0);
  expect(ownedEvents.size).toBeGreaterThan(0);
}, 120_000);
