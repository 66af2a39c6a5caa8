/** Shared helpers of the webhook operations' tests (pause, delivery log, bulk replay, retention). */
import { afterAll, beforeAll, expect } from "bun:test";
import { ManualClock } from "../../src/runtime/clock.ts";
import { type Harness, startHarness } from "./harness.ts";

export const WAREHOUSE_TOKEN = "warehouse-token-of-the-tests";

/** A tenant whose `warehouse` source is set up (a bearer token). */
export async function warehouseTenant(h: Harness): Promise<{ id: string; token: string }> {
  const { tenant_id, token } = await h.createTenant();
  h.env[`WAREHOUSE_WEBHOOK_TOKEN_${tenant_id}`] = WAREHOUSE_TOKEN;
  return { id: tenant_id, token };
}

export interface Row {
  event_id: string;
  kind?: string;
  content?: string;
  [field: string]: unknown;
}

/** Posts warehouse rows (facts unless said otherwise), signed with the tenant's token unless `token` says else. */
export function deliver(
  h: Harness,
  tenantId: string,
  rows: Row[],
  opts: { token?: string; requestId?: string } = {},
  // biome-ignore lint/suspicious/noExplicitAny: tests read response bodies field by field
): Promise<{ status: number; body: any; res: Response }> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${opts.token ?? WAREHOUSE_TOKEN}`,
    "content-type": "application/json",
  };
  if (opts.requestId) headers["x-request-id"] = opts.requestId;
  const body = JSON.stringify(rows.map((r) => ({ kind: "fact", ...r })));
  return h.json("POST", `/webhooks/warehouse/${tenantId}`, { raw: body, headers });
}

export function fact(eventId: string, content = `fact of ${eventId}`): Row {
  return { event_id: eventId, content };
}

/** The tenant's facts written from an event id (every version: the count says whether it was written once). */
export async function factsOf(
  h: Harness,
  token: string,
): Promise<Array<{ id: string; content: string; source?: { event_id?: string } }>> {
  const { body } = await h.json("GET", "/memory/facts?limit=500", { token });
  return body.items;
}

export function admin(h: Harness, method: string, path: string, body?: unknown) {
  return h.json(method, path, { token: h.adminToken, body });
}

/** Dead letters of `rows` for a tenant: suspended, each delivered (the clock a second on after each), resumed. */
export async function deadLettersFor(
  h: Harness,
  clock: { advance(ms: number): void },
  tenantId: string,
  rows: Row[],
): Promise<void> {
  await admin(h, "POST", `/admin/tenants/${tenantId}/suspend`);
  for (const row of rows) {
    const { body } = await deliver(h, tenantId, [row]);
    if (body.dead_lettered?.[0] !== row.event_id) throw new Error(`${row.event_id} was not dead-lettered`);
    clock.advance(1000);
  }
  await admin(h, "POST", `/admin/tenants/${tenantId}/resume`);
}

/** A new warehouse tenant with a dead letter of each row (see deadLettersFor). */
export async function deadLetterTenant(
  h: Harness,
  clock: { advance(ms: number): void },
  rows: Row[],
): Promise<{ id: string; token: string }> {
  const t = await warehouseTenant(h);
  await deadLettersFor(h, clock, t.id, rows);
  return t;
}

/** A suite's harness on a manual clock, and a maker of dead-letter tenants on it (see deadLetterTenant). */
export interface DeadLetterSuite {
  h: Harness;
  clock: ManualClock;
  withDeadLetters(rows: Row[]): Promise<{ id: string; token: string }>;
}

/** Starts the suite's harness before its tests (`h` is set then) and closes it after them. */
export function useDeadLetterSuite(): DeadLetterSuite {
  const clock = new ManualClock(Date.UTC(2026, 10, 21, 10, 0, 0));
  const suite = {
    clock,
    withDeadLetters: (rows) => deadLetterTenant(suite.h, clock, rows),
  } as DeadLetterSuite;
  beforeAll(async () => {
    suite.h = await startHarness({ clock });
  });
  afterAll(() => suite.h.close());
  return suite;
}

/**
 * A tenant with four dead letters (f-1, a workflow w-1, f-2, f-3, a second apart), then one filter
 * of a bulk operation after another, each taking one letter (`take` answers the event ids taken):
 * by source, event_type, received_at (from and to inclusive). f-3 is left.
 */
export async function expectFiltersTakeOneEach(
  suite: DeadLetterSuite,
  take: (tenantId: string, body: unknown) => Promise<string[]>,
): Promise<{ id: string; token: string }> {
  const t = await suite.withDeadLetters([
    fact("f-1"),
    { event_id: "w-1", kind: "workflow", content: "a workflow" },
    fact("f-2"),
    fact("f-3"),
  ]);
  const start = suite.clock.now() - 4000;
  const iso = (ms: number) => new Date(ms).toISOString();
  expect(await take(t.id, { source: "payments" })).toEqual([]);
  expect(await take(t.id, { event_type: "workflow" })).toEqual(["w-1"]);
  expect(await take(t.id, { from: iso(start + 2000), to: iso(start + 2000) })).toEqual(["f-2"]);
  expect(await take(t.id, { source: "warehouse", to: iso(start) })).toEqual(["f-1"]);
  return t;
}

/** Bodies a bulk replay or a bulk discard refuses (422), each for another rule of the body. */
export const BAD_BULK_BODIES: readonly unknown[] = [
  { limit: 0 },
  { limit: 1001 },
  { limit: "abc" },
  { limit: 2.5 },
  { from: "yesterday" },
  { to: "2026-13-01T00:00:00Z" },
  { from: "2026-11-21T10:00:00Z", to: "2026-11-20T10:00:00Z" },
  { source: "no_such_source" },
  { event_type: "" },
  { cursor: "not-a-cursor" },
  { surprise: true },
  [],
  "text",
];
