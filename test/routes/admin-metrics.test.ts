import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/runtime/clock.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";
import { type CrmNote, crmSignature, setSecrets, soapMessage } from "../helpers/webhooks.ts";

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const clock = new ManualClock(NOW);
const DAY = 24 * 3600 * 1000;
const iso = (ms: number) => new Date(ms).toISOString();
/** A fixed window around "three days ago", the day the tests' work happened. */
const WORK = NOW - 3 * DAY;
const WINDOW = `from=${iso(WORK - DAY)}&to=${iso(WORK + DAY)}`;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(() => h.close());

interface Tenant {
  id: string;
  token: string;
}

async function tenant(): Promise<Tenant> {
  const { tenant_id, token } = await h.createTenant();
  return { id: tenant_id, token };
}

async function write(t: Tenant, plural: string, body: Record<string, unknown>): Promise<string> {
  const { status, body: entry } = await h.json("POST", `/memory/${plural}`, { token: t.token, body });
  expect({ status, entry }).toMatchObject({ status: 201 });
  return entry.id;
}

/** An agent's decision and the outcome it records on it, both at `at`. */
async function decided(
  t: Tenant,
  agent: string,
  outcome: Record<string, unknown>,
  at = WORK,
): Promise<string> {
  const decision = await write(t, "decisions", {
    content: `${agent} offers a discount ${Math.random()}`,
    agent_id: agent,
    valid_from: iso(at),
  });
  return write(t, "outcomes", {
    content: `${agent}'s offer: ${outcome.result} ${outcome.amount ?? ""}`,
    decision_id: decision,
    agent_id: agent,
    valid_from: iso(at + 60_000),
    ...outcome,
  });
}

async function revenue(t: Tenant, query = WINDOW) {
  const { status, body } = await h.json("GET", `/admin/metrics/revenue-per-agent/${t.id}?${query}`, {
    token: h.adminToken,
  });
  expect({ status, body }).toMatchObject({ status: 200 });
  return body;
}

let noteSeq = 0;
/** A closed-won opportunity delivered through the CRM webhook (the connector writes the decision). */
async function crmDeal(t: Tenant, fields: Record<string, string>): Promise<string> {
  const secret = `crm-${t.id}`;
  setSecrets(h, t.id, { CRM_WEBHOOK_SECRET: secret });
  const note: CrmNote = {
    id: `04l5e00000${String(++noteSeq).padStart(8, "0")}`,
    type: "Opportunity",
    fields: { StageName: "Closed Won", IsClosed: "true", IsWon: "true", CurrencyIsoCode: "USD", ...fields },
  };
  const xml = soapMessage([note]);
  const res = await h.call("POST", `/webhooks/crm/${t.id}`, {
    raw: xml,
    headers: { "content-type": "text/xml", "x-crm-signature": crmSignature(secret, xml) },
  });
  expect(res.status).toBe(200);
  const summary = JSON.parse(res.headers.get("x-memory-summary")!);
  expect(summary.entries).toHaveLength(1);
  return summary.entries[0];
}

describe("GET /admin/metrics/revenue-per-agent/{tenant_id}", () => {
  test("two successes by two agents and a failure by a third: exact revenue, agents and per-agent figures", async () => {
    const t = await tenant();
    await decided(t, "agent-a", { result: "success", amount: 1000 });
    await decided(t, "agent-b", { result: "success", amount: 250.5 });
    await decided(t, "agent-c", { result: "failure", amount: 999 });
    const body = await revenue(t);
    expect(body).toEqual({
      tenant_id: t.id,
      from: iso(WORK - DAY),
      to: iso(WORK + DAY),
      currency: "USD",
      revenue: 1250.5,
      agents: 3,
      revenue_per_agent: 416.833333,
      by_currency: [{ currency: "USD", revenue: 1250.5, revenue_per_agent: 416.833333 }],
      by_agent: [
        {
          agent_id: "agent-a",
          revenue: 1000,
          outcomes: 1,
          by_currency: [{ currency: "USD", revenue: 1000 }],
        },
        {
          agent_id: "agent-b",
          revenue: 250.5,
          outcomes: 1,
          by_currency: [{ currency: "USD", revenue: 250.5 }],
        },
        { agent_id: "agent-c", revenue: 0, outcomes: 1, by_currency: [] },
      ],
    });
  });

  test("a window before the work gives 0 and no agents", async () => {
    const t = await tenant();
    await decided(t, "agent-a", { result: "success", amount: 1000 });
    const body = await revenue(t, `from=${iso(WORK - 10 * DAY)}&to=${iso(WORK - 5 * DAY)}`);
    expect(body).toMatchObject({
      currency: "USD",
      revenue: 0,
      agents: 0,
      revenue_per_agent: null,
      by_agent: [],
    });
  });

  test("the window is [from, to): an outcome at `to` falls in the next window", async () => {
    const t = await tenant();
    await decided(t, "agent-a", { result: "success", amount: 10, valid_from: iso(WORK) });
    expect((await revenue(t, `from=${iso(WORK - DAY)}&to=${iso(WORK)}`)).revenue).toBe(0);
    expect((await revenue(t, `from=${iso(WORK)}&to=${iso(WORK + 1)}`)).revenue).toBe(10);
  });

  test("a connector's closed-won deal counts; with an outcome on it, it counts once, at the outcome's amount", async () => {
    const t = await tenant();
    const deal = await crmDeal(t, {
      Id: "0065e000009",
      Name: "Globex",
      Amount: "125000",
      LastModifiedDate: iso(WORK),
    });
    const alone = await revenue(t);
    expect(alone).toMatchObject({ revenue: 125000, agents: 1 });
    expect(alone.by_agent).toEqual([
      {
        agent_id: "connector:crm",
        revenue: 125000,
        outcomes: 0,
        by_currency: [{ currency: "USD", revenue: 125000 }],
      },
    ]);
    await write(t, "outcomes", {
      content: "Globex signed",
      decision_id: deal,
      result: "success",
      amount: 125000,
      agent_id: "agent-closer",
      valid_from: iso(WORK + 3_600_000),
    });
    const both = await revenue(t);
    expect(both).toMatchObject({ revenue: 125000, agents: 2, revenue_per_agent: 62500 });
    expect(both.by_agent.map((a: { agent_id: string; revenue: number }) => [a.agent_id, a.revenue])).toEqual([
      ["agent-closer", 125000],
      ["connector:crm", 0],
    ]);
  });

  test("a deal whose outcome falls in a later window is counted there, by its outcome, not twice", async () => {
    const t = await tenant();
    const deal = await crmDeal(t, {
      Id: "0065e000012",
      Name: "Hooli",
      Amount: "4000",
      LastModifiedDate: iso(WORK),
    });
    await write(t, "outcomes", {
      content: "Hooli signed",
      decision_id: deal,
      result: "success",
      amount: 4000,
      agent_id: "agent-late",
      valid_from: iso(WORK + 3 * DAY),
    });
    expect((await revenue(t)).revenue).toBe(0);
    expect((await revenue(t, `from=${iso(WORK + 2 * DAY)}&to=${iso(WORK + 4 * DAY)}`)).revenue).toBe(4000);
  });

  test("a deal updated twice in the window counts once, at its latest amount", async () => {
    const t = await tenant();
    await crmDeal(t, { Id: "0065e000010", Name: "Initech", Amount: "5000", LastModifiedDate: iso(WORK) });
    await crmDeal(t, {
      Id: "0065e000010",
      Name: "Initech",
      Amount: "7000",
      LastModifiedDate: iso(WORK + 60_000),
    });
    expect(await revenue(t)).toMatchObject({ revenue: 7000, agents: 1 });
  });

  test("an outcome on an earlier version of a deal resolves the deal: the later version is not counted again", async () => {
    const t = await tenant();
    const first = await crmDeal(t, {
      Id: "0065e000011",
      Name: "Umbrella",
      Amount: "900",
      LastModifiedDate: iso(WORK),
    });
    await write(t, "outcomes", {
      content: "Umbrella paid",
      decision_id: first,
      result: "success",
      amount: 900,
      agent_id: "agent-u",
      valid_from: iso(WORK + 60_000),
    });
    await crmDeal(t, {
      Id: "0065e000011",
      Name: "Umbrella",
      Amount: "950",
      LastModifiedDate: iso(WORK + 120_000),
    });
    expect(await revenue(t)).toMatchObject({ revenue: 900 });
  });

  test("a success outcome without an amount takes the amount of the deal it resolves", async () => {
    const t = await tenant();
    const deal = await crmDeal(t, {
      Id: "0065e000012",
      Name: "Hooli",
      Amount: "4200",
      LastModifiedDate: iso(WORK),
    });
    await write(t, "outcomes", {
      content: "Hooli live",
      decision_id: deal,
      result: "success",
      valid_from: iso(WORK),
    });
    expect(await revenue(t)).toMatchObject({ revenue: 4200, currency: "USD" });
  });

  test("a closed-won decision written by an agent (not a connector) is not revenue until an outcome says so", async () => {
    const t = await tenant();
    await write(t, "decisions", {
      content: "I consider this won",
      stage: "closed_won",
      amount: 5000,
      valid_from: iso(WORK),
    });
    expect(await revenue(t)).toMatchObject({ revenue: 0, agents: 1 });
  });

  test("mixed currencies are reported per currency, never summed", async () => {
    const t = await tenant();
    await decided(t, "agent-a", { result: "success", amount: 100, currency: "EUR" });
    await decided(t, "agent-b", { result: "success", amount: 0.1 });
    await decided(t, "agent-b", { result: "success", amount: 0.2 });
    const body = await revenue(t);
    expect(body).toMatchObject({ currency: null, revenue: null, revenue_per_agent: null, agents: 2 });
    expect(body.by_currency).toEqual([
      { currency: "EUR", revenue: 100, revenue_per_agent: 50 },
      { currency: "USD", revenue: 0.3, revenue_per_agent: 0.15 },
    ]);
    expect(body.by_agent).toEqual([
      { agent_id: "agent-a", revenue: null, outcomes: 1, by_currency: [{ currency: "EUR", revenue: 100 }] },
      { agent_id: "agent-b", revenue: null, outcomes: 2, by_currency: [{ currency: "USD", revenue: 0.3 }] },
    ]);
  });

  test("a corrected outcome counts at its correction only", async () => {
    const t = await tenant();
    const wrong = await decided(t, "agent-a", { result: "success", amount: 100 });
    const original = await h.json("GET", `/memory/outcomes/${wrong}`, { token: t.token });
    await write(t, "outcomes", {
      content: "the real amount",
      decision_id: original.body.decision_id,
      result: "success",
      amount: 150,
      corrects: wrong,
      agent_id: "agent-a",
      valid_from: iso(WORK),
    });
    expect(await revenue(t)).toMatchObject({ revenue: 150, agents: 1 });
  });

  test("defaults: the last 30 days before now", async () => {
    const t = await tenant();
    await decided(t, "agent-old", { result: "success", amount: 1 }, NOW - 31 * DAY);
    await decided(t, "agent-new", { result: "success", amount: 2 }, NOW - 29 * DAY);
    const body = await revenue(t, "");
    // The default window ends just after now, so what is written at this very millisecond counts.
    expect(body).toMatchObject({ from: iso(NOW + 1 - 30 * DAY), to: iso(NOW + 1), revenue: 2, agents: 1 });
    const onlyTo = await revenue(t, `to=${iso(NOW - 30 * DAY)}`);
    expect(onlyTo).toMatchObject({ from: iso(NOW - 60 * DAY), revenue: 1, agents: 1 });
  });

  test("by default an entry written now counts", async () => {
    const t = await tenant();
    await decided(t, "agent-now", { result: "success", amount: 5, valid_from: iso(NOW) }, NOW);
    expect(await revenue(t, "")).toMatchObject({ revenue: 5, agents: 1 });
  });

  test("bad dates → 422", async () => {
    const t = await tenant();
    for (const query of [
      "from=yesterday",
      "to=2026-02-30T00:00:00Z",
      `from=${iso(WORK)}&to=${iso(WORK)}`,
      `from=${iso(WORK + 1)}&to=${iso(WORK)}`,
      "from=2026-11-01",
      `from=${"9".repeat(5000)}`,
      // The default window (30 days before `to`) would start before year 0000 (found by the fuzz).
      "to=0000-01-15T00:00:00Z",
    ]) {
      const res = await h.call("GET", `/admin/metrics/revenue-per-agent/${t.id}?${query}`, {
        token: h.adminToken,
      });
      await expectProblem(res, 422, "validation_failed");
    }
  });

  test("a tenant token → 403, recorded as a denial; unknown and malformed tenants → 404", async () => {
    const t = await tenant();
    const res = await h.call("GET", `/admin/metrics/revenue-per-agent/${t.id}`, { token: t.token });
    await expectProblem(res, 403, "forbidden");
    const { body } = await h.json("GET", `/admin/audit/denials/${t.id}`, { token: h.adminToken });
    expect(body.denials[0]).toMatchObject({
      path: `/admin/metrics/revenue-per-agent/${t.id}`,
      permission: "admin",
    });
    for (const id of ["01JDB2X6J3KQ5W8Z3M4N7P9R2S", "..%2F..%2Fetc", "x".repeat(300)]) {
      const missing = await h.call("GET", `/admin/metrics/revenue-per-agent/${id}`, { token: h.adminToken });
      await expectProblem(missing, 404, "not_found");
    }
  });
});
