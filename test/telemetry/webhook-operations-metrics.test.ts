/**
 * The webhook operations' metrics at `GET /metrics` (docs/observability.md), black-box: a source
 * paused and its events held, then released; a dead letter replayed; retention on the clock. Labels
 * are sources, statuses and outcomes: never a tenant id.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OPERATOR_TENANT_ID } from "../../src/models/common.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { deliver, fact, WAREHOUSE_TOKEN } from "../helpers/webhook-ops.ts";
import { nextTurn, Scrape } from "./scrape.ts";

const DAY = 86_400_000;
let h: Harness;
const clock = new ManualClock(Date.UTC(2026, 10, 21, 10, 0, 0));
beforeAll(async () => {
  h = await startHarness({ clock, env: { MEMORY_RUNTIME_DELIVERY_LOG_DAYS: "1" } });
});
afterAll(() => h.close());

/** A value, 0 when the family has no series at all (a gauge whose every series went to zero). */
function seriesValue(s: Scrape, name: string, labels: Record<string, string> = {}): number {
  return s.families[name] ? s.value(name, labels) : 0;
}

/** An operator token minted now: the clock moves a day, past the harness's own token. */
async function operator(): Promise<string> {
  const minted = await h.runtime.services.tokens.mint({
    sub: "operator",
    tenantId: OPERATOR_TENANT_ID,
    roles: [],
    admin: true,
    ttlSeconds: 3600,
  });
  return minted.token;
}

async function admin(method: string, path: string, body?: unknown) {
  return h.json(method, path, { token: await operator(), body });
}

async function scrapeNow(): Promise<Scrape> {
  await nextTurn();
  const res = await h.call("GET", "/metrics", { token: await operator() });
  expect(res.status).toBe(200);
  return Scrape.of(await res.text());
}

async function tenant(): Promise<string> {
  const { body } = await admin("POST", "/admin/tenants", { name: `Metrics ${crypto.randomUUID()}` });
  h.env[`WAREHOUSE_WEBHOOK_TOKEN_${body.tenant_id}`] = WAREHOUSE_TOKEN;
  return body.tenant_id;
}

describe("webhook operations' metrics", () => {
  test("paused sources and held events are gauges per source; pauses, releases, replays and purges are counted", async () => {
    const a = await tenant();
    const b = await tenant();
    for (const t of [a, b]) await admin("POST", `/admin/webhooks/sources/${t}/warehouse/pause`);
    expect((await deliver(h, a, [fact("a-1"), fact("a-2")])).status).toBe(202);
    expect((await deliver(h, b, [fact("b-1")])).status).toBe(202);
    const paused = await scrapeNow();
    expect(paused.value("memory_runtime_webhook_sources_paused", { source: "warehouse" })).toBe(2);
    expect(paused.value("memory_runtime_webhook_held_events", { source: "warehouse" })).toBe(3);
    expect(
      paused.value("memory_runtime_webhook_source_changes_total", { source: "warehouse", status: "paused" }),
    ).toBe(2);
    expect(
      paused.value("memory_runtime_webhook_events_total", { source: "warehouse", outcome: "held" }),
    ).toBe(3);
    for (const t of [a, b]) expect(paused.text).not.toContain(t);

    await admin("POST", `/admin/webhooks/sources/${a}/warehouse/resume`);
    const resumed = await scrapeNow();
    expect(resumed.value("memory_runtime_webhook_sources_paused", { source: "warehouse" })).toBe(1);
    expect(resumed.value("memory_runtime_webhook_held_events", { source: "warehouse" })).toBe(1);
    expect(
      resumed.value("memory_runtime_webhook_held_released_total", {
        source: "warehouse",
        outcome: "accepted",
      }),
    ).toBe(2);
    expect(
      resumed.value("memory_runtime_webhook_source_changes_total", {
        source: "warehouse",
        status: "resumed",
      }),
    ).toBe(1);

    // A dead letter (the tenant suspended), replayed once it is resumed.
    await admin("POST", `/admin/tenants/${a}/suspend`);
    await deliver(h, a, [fact("a-late")]);
    await admin("POST", `/admin/tenants/${a}/resume`);
    expect((await admin("POST", `/admin/webhooks/replay/${a}`, {})).body.replayed).toBe(1);
    const replayed = await scrapeNow();
    expect(replayed.value("memory_runtime_dead_letter_replays_total", { status: "replayed" })).toBe(1);

    // Retention: a day on, the upkeep purges a's log (and learns b's state afresh).
    clock.advance(DAY + 1);
    await h.runtime.webhookUpkeep.pass();
    const purged = await scrapeNow();
    expect(
      purged.value("memory_runtime_webhook_retention_purged_total", { record: "delivery_log" }),
    ).toBeGreaterThan(0);
    expect(purged.value("memory_runtime_webhook_sources_paused", { source: "warehouse" })).toBe(1);
    expect(purged.value("memory_runtime_webhook_held_events", { source: "warehouse" })).toBe(1);
  });

  test("after a restart the gauges are learned again from the vaults by the upkeep", async () => {
    const t = await tenant();
    await admin("POST", `/admin/webhooks/sources/${t}/warehouse/pause`);
    await deliver(h, t, [fact("r-1"), fact("r-2")]);
    await h.restart();
    expect(seriesValue(await scrapeNow(), "memory_runtime_webhook_held_events")).toBe(0);
    await h.runtime.webhookUpkeep.pass();
    const learned = await scrapeNow();
    expect(
      learned.value("memory_runtime_webhook_held_events", { source: "warehouse" }),
    ).toBeGreaterThanOrEqual(2);
  });
});
