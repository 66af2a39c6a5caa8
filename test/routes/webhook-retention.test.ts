/**
 * Retention of the webhook operations' records (docs/webhook-operations.md#retention) on the
 * injected clock, the upkeep that purges them and continues a resume a restart cut short, and
 * erasure of what the delivery log and the held events keep.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { UPKEEP_MARKER } from "../../src/ingest/upkeep-marker.ts";
import { UPKEEP_INTERVAL_MS } from "../../src/ingest/webhook-upkeep.ts";
import { OPERATOR_TENANT_ID } from "../../src/models/common.ts";
import type { TenantStorage } from "../../src/ports/runtime-ports.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { tenantDir } from "../../src/vault/tenant-paths.ts";
import { TenantVault } from "../../src/vault/tenant-vault.ts";
import type { WriteSet } from "../../src/vault/write-set.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { deliver, fact, WAREHOUSE_TOKEN } from "../helpers/webhook-ops.ts";

const DAY = 86_400_000;
const harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

async function start(env: Record<string, string> = {}, ports?: { storage: TenantStorage }) {
  const clock = new ManualClock(Date.UTC(2026, 10, 21, 10, 0, 0));
  const h = await startHarness({ clock, env, ports });
  harnesses.push(h);
  return { h, clock };
}

/** The operator's call with a token minted now (the clock moves days: the harness's own expires). */
async function admin(h: Harness, method: string, path: string, body?: unknown) {
  const minted = await h.runtime.services.tokens.mint({
    sub: "operator",
    tenantId: OPERATOR_TENANT_ID,
    roles: [],
    admin: true,
    ttlSeconds: 3600,
  });
  return h.json(method, path, { token: minted.token, body });
}

/** A tenant with the warehouse source set up; its token minted when asked (the clock moves). */
async function warehouseTenant(h: Harness) {
  const { body } = await admin(h, "POST", "/admin/tenants", { name: `Retention ${crypto.randomUUID()}` });
  h.env[`WAREHOUSE_WEBHOOK_TOKEN_${body.tenant_id}`] = WAREHOUSE_TOKEN;
  return { id: body.tenant_id as string };
}

async function factsOf(h: Harness, tenantId: string) {
  const token = await h.mint(tenantId, ["tenant_admin"]);
  const { body } = await h.json("GET", "/memory/facts?limit=500", { token });
  return body.items as Array<{ source?: { event_id?: string } }>;
}

async function logIds(h: Harness, tenantId: string): Promise<string[]> {
  const { body } = await admin(h, "GET", `/admin/webhooks/deliveries/${tenantId}?limit=1000`);
  return body.deliveries.map((d: { event_id: string; outcome: string }) => `${d.event_id}:${d.outcome}`);
}

async function letters(h: Harness, tenantId: string): Promise<string[]> {
  const { body } = await admin(h, "GET", `/admin/webhooks/dead-letters/${tenantId}?limit=1000`);
  return body.dead_letters
    .map((d: { event_id: string; status: string }) => `${d.event_id}:${d.status}`)
    .sort();
}

/** Two dead letters (the tenant suspended), one of them replayed; `old` logged before. */
async function history(h: Harness) {
  const t = await warehouseTenant(h);
  await deliver(h, t.id, [fact("old")]);
  await admin(h, "POST", `/admin/tenants/${t.id}/suspend`);
  await deliver(h, t.id, [fact("kept-dead"), fact("replayed")]);
  await admin(h, "POST", `/admin/tenants/${t.id}/resume`);
  expect((await admin(h, "POST", `/admin/webhooks/replay/${t.id}/replayed`)).body.status).toBe("replayed");
  return t;
}

describe("retention, on the clock", () => {
  test("defaults: the log after 30 days, a replayed dead letter 90 days after its replay, a dead one kept", async () => {
    const { h, clock } = await start();
    const t = await history(h);
    const upkeep = h.runtime.webhookUpkeep;
    clock.advance(29 * DAY);
    await upkeep.pass();
    expect(await logIds(h, t.id)).toHaveLength(4);
    clock.advance(2 * DAY);
    await upkeep.pass();
    expect(await logIds(h, t.id)).toEqual([]);
    expect(await letters(h, t.id)).toEqual(["kept-dead:dead", "replayed:replayed"]);
    clock.advance(60 * DAY);
    await upkeep.pass();
    expect(await letters(h, t.id)).toEqual(["kept-dead:dead"]);
    clock.advance(3650 * DAY);
    await upkeep.pass();
    expect(await letters(h, t.id)).toEqual(["kept-dead:dead"]);
    // The entries themselves are memory, not delivery records: untouched.
    expect((await factsOf(h, t.id)).map((f) => f.source?.event_id).sort()).toEqual(["old", "replayed"]);
  });

  test("configured: MEMORY_RUNTIME_DELIVERY_LOG_DAYS, _DEAD_LETTER_DAYS and _DEAD_LETTER_DEAD_DAYS", async () => {
    const { h, clock } = await start({
      MEMORY_RUNTIME_DELIVERY_LOG_DAYS: "1",
      MEMORY_RUNTIME_DEAD_LETTER_DAYS: "2",
      MEMORY_RUNTIME_DEAD_LETTER_DEAD_DAYS: "3",
    });
    const t = await history(h);
    clock.advance(DAY + 1);
    await h.runtime.webhookUpkeep.pass();
    expect(await logIds(h, t.id)).toEqual([]);
    expect(await letters(h, t.id)).toHaveLength(2);
    clock.advance(DAY);
    await h.runtime.webhookUpkeep.pass();
    expect(await letters(h, t.id)).toEqual(["kept-dead:dead"]);
    clock.advance(DAY);
    await h.runtime.webhookUpkeep.pass();
    expect(await letters(h, t.id)).toEqual([]);
  });

  test("a discarded dead letter goes MEMORY_RUNTIME_DEAD_LETTER_DAYS after its discard, not after its arrival", async () => {
    const { h, clock } = await start({ MEMORY_RUNTIME_DEAD_LETTER_DAYS: "2" });
    const t = await warehouseTenant(h);
    await admin(h, "POST", `/admin/tenants/${t.id}/suspend`);
    await deliver(h, t.id, [fact("given-up")]);
    await admin(h, "POST", `/admin/tenants/${t.id}/resume`);
    clock.advance(5 * DAY);
    // Dead letters never expire by default: five days on it is still there to discard.
    await h.runtime.webhookUpkeep.pass();
    expect((await admin(h, "POST", `/admin/webhooks/discard/${t.id}/given-up`)).status).toBe(200);
    clock.advance(DAY);
    await h.runtime.webhookUpkeep.pass();
    expect(await letters(h, t.id)).toEqual(["given-up:discarded"]);
    clock.advance(DAY + 1);
    await h.runtime.webhookUpkeep.pass();
    expect(await letters(h, t.id)).toEqual([]);
  });

  test("a closed vault is purged when its marker falls due; the marker goes once nothing is left", async () => {
    const { h, clock } = await start({ MEMORY_RUNTIME_DELIVERY_LOG_DAYS: "1" });
    const t = await warehouseTenant(h);
    await deliver(h, t.id, [fact("only")]);
    const marker = join(tenantDir(h.dataDir, t.id), UPKEEP_MARKER);
    expect(Number(readFileSync(marker, "utf8"))).toBe(clock.now() + DAY);
    await h.runtime.passivateTenant(t.id);
    clock.advance(DAY + 1);
    expect(h.runtime.services.limits.openTenants()).toBe(0);
    await h.runtime.webhookUpkeep.pass();
    expect(existsSync(marker)).toBe(false);
    expect(await logIds(h, t.id)).toEqual([]);
    // The next record marks the vault again.
    await deliver(h, t.id, [fact("again")]);
    expect(existsSync(marker)).toBe(true);
  });

  test("the upkeep runs on the clock's timer: at start, then every hour", async () => {
    const { h, clock } = await start({ MEMORY_RUNTIME_DELIVERY_LOG_DAYS: "1" });
    const t = await warehouseTenant(h);
    await deliver(h, t.id, [fact("timed")]);
    const upkeep = h.runtime.webhookUpkeep;
    upkeep.start();
    clock.advance(DAY);
    await upkeep.pass(); // joins the pass the timer started (nothing is due at exactly one day)
    expect(await logIds(h, t.id)).toEqual(["timed:accepted"]);
    clock.advance(UPKEEP_INTERVAL_MS);
    await upkeep.pass();
    expect(await logIds(h, t.id)).toEqual([]);
    upkeep.stop();
  });
});

describe("erasure", () => {
  test("erasing entries removes their delivery log records; erasing a subject removes the held events naming it", async () => {
    const { h } = await start();
    const t = await warehouseTenant(h);
    await deliver(h, t.id, [fact("e-1", "about zanzibar quokkaworth"), fact("e-2", "about something else")]);
    await admin(h, "POST", `/admin/webhooks/sources/${t.id}/warehouse/pause`);
    await deliver(h, t.id, [
      fact("e-3", "held, also about Zanzibar Quokkaworth"),
      fact("e-4", "held, unrelated"),
    ]);
    const dry = await admin(h, "POST", `/admin/tenants/${t.id}/erase`, {
      subject: "zanzibar quokkaworth",
      dry_run: true,
    });
    expect(dry.body).toMatchObject({ deliveries_removed: 2, dry_run: true });
    const erased = await admin(h, "POST", `/admin/tenants/${t.id}/erase`, {
      subject: "zanzibar quokkaworth",
    });
    expect(erased.status).toBe(200);
    expect(erased.body).toMatchObject({ deliveries_removed: 2 });
    expect(erased.body.erased).toHaveLength(1);
    expect(await logIds(h, t.id)).toEqual(["e-4:held", "e-3:held", "e-2:accepted"]);
    const { body } = await admin(h, "GET", `/admin/webhooks/sources/${t.id}`);
    expect(body.sources.find((s: { source: string }) => s.source === "warehouse")).toMatchObject({ held: 1 });
    await admin(h, "POST", `/admin/webhooks/sources/${t.id}/warehouse/resume`);
    expect((await factsOf(h, t.id)).map((f) => f.source?.event_id).sort()).toEqual(["e-2", "e-4"]);
  });
});

describe("a restart in the middle of a resume", () => {
  test("the upkeep continues it after the restart: every held event applied once", async () => {
    let crashAt = 3;
    let releases = 0;
    class DyingVault extends TenantVault {
      override write(set: WriteSet): Promise<void> {
        if (set.webhooks?.released?.length && ++releases === crashAt)
          throw new Error("the process died here");
        return super.write(set);
      }
    }
    const storage: TenantStorage = {
      openVault: (_id, path, options) => new DyingVault(path, options),
      sealImport: async () => undefined,
    };
    const { h } = await start({}, { storage });
    const t = await warehouseTenant(h);
    await admin(h, "POST", `/admin/webhooks/sources/${t.id}/warehouse/pause`);
    const ids = Array.from({ length: 8 }, (_, i) => `m-${i}`);
    for (const id of ids) expect((await deliver(h, t.id, [fact(id)])).status).toBe(202);
    await expect(h.runtime.services.webhooks.resume(t.id, "warehouse", null)).rejects.toThrow(
      "the process died here",
    );
    crashAt = Number.POSITIVE_INFINITY;
    await h.restart();
    const before = await admin(h, "GET", `/admin/webhooks/sources/${t.id}`);
    expect(before.body.sources.find((s: { source: string }) => s.source === "warehouse")).toMatchObject({
      status: "paused",
      resuming: true,
      held: 6,
    });
    await h.runtime.webhookUpkeep.pass();
    const after = await admin(h, "GET", `/admin/webhooks/sources/${t.id}`);
    expect(after.body.sources.find((s: { source: string }) => s.source === "warehouse")).toMatchObject({
      status: "active",
      resuming: false,
      held: 0,
    });
    const facts = await factsOf(h, t.id);
    expect(facts.map((f) => f.source?.event_id).sort()).toEqual(ids);
    const accepted = (await logIds(h, t.id)).filter((r) => r.endsWith(":accepted"));
    expect(accepted).toHaveLength(8);
  });
});
