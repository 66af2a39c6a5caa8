/**
 * `GET /metrics` (issue 22, item 1), black-box: real traffic through the app, then the scrape parsed
 * by a Prometheus text-format parser, series and labels asserted: route templates (never a raw
 * path), bounded labels (never a tenant id), the operator's token required.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/runtime/clock.ts";
import { catalogAuditRow } from "../fakes/data-events.ts";
import { BASE, type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";
import { setSecrets } from "../helpers/webhooks.ts";
import { type Scrape, scrape } from "./scrape.ts";

type OpenApiDoc = {
  paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, unknown> }> }>>;
};

const DATA_TOKEN = "data-webhook-token-of-the-metrics-test";
const clock = new ManualClock(Date.parse("2026-03-01T00:00:00Z"));
let h: Harness;
let tenant: { tenant_id: string; token: string };
let entryId: string;
let after: Scrape;

beforeAll(async () => {
  h = await startHarness({
    clock,
    env: { MEMORY_RUNTIME_RATE_LIMITS: "search=0.001:2", MEMORY_RUNTIME_RATE_LIMIT_HOLD_MS: "0" },
  });
  tenant = await h.createTenant();
  setSecrets(h, tenant.tenant_id, { DATA_WEBHOOK_TOKEN: DATA_TOKEN });
  const token = tenant.token;
  const written = await h.json("POST", "/memory/facts", {
    token,
    body: { content: "The renewal is due in May" },
  });
  expect(written.status).toBe(201);
  entryId = written.body.id;
  expect(
    (await h.call("POST", "/memory/facts", { token, body: { content: "Ana owns the account" } })).status,
  ).toBe(201);
  expect((await h.call("GET", `/memory/facts/${entryId}`, { token })).status).toBe(200);
  // Search: two in the burst, then refused by the tenant's rate limit (429).
  for (const query of ["renewal", "account"])
    expect((await h.call("POST", "/memory/search", { token, body: { query } })).status).toBe(200);
  expect((await h.call("POST", "/memory/search", { token, body: { query: "x" } })).status).toBe(429);
  expect(
    (await h.call("GET", `/memory/facts/${entryId === "00000000" ? "00000001" : "00000000"}`, { token }))
      .status,
  ).toBe(404);
  expect((await h.call("GET", "/no/such/route")).status).toBe(404);
  expect((await h.call("GET", "/tenants/me")).status).toBe(401);
  // A webhook delivery, accepted, and one refused for its token.
  const delivery = (auth: string, id: string) =>
    h.call("POST", `/webhooks/data/${tenant.tenant_id}`, {
      raw: JSON.stringify(catalogAuditRow(id)),
      headers: { "content-type": "application/json", authorization: `Bearer ${auth}` },
    });
  expect((await delivery(DATA_TOKEN, "evt-1")).status).toBe(200);
  expect((await delivery("wrong", "evt-2")).status).toBe(401);
  after = await scrape(h);
});
afterAll(() => h.close());

describe("GET /metrics", () => {
  test("requests are counted and timed by method, route template and status", () => {
    const { tenant_id } = tenant;
    expect(
      after.value("memory_runtime_http_requests_total", {
        method: "POST",
        route: "/memory/facts",
        status: "201",
      }),
    ).toBe(2);
    expect(
      after.value("memory_runtime_http_requests_total", {
        method: "GET",
        route: "/memory/facts/{sha8}",
        status: "200",
      }),
    ).toBe(1);
    expect(
      after.value("memory_runtime_http_requests_total", {
        method: "GET",
        route: "/memory/facts/{sha8}",
        status: "404",
      }),
    ).toBe(1);
    expect(
      after.value("memory_runtime_http_requests_total", {
        route: "/webhooks/{source}/{tenant_id}",
        status: "401",
      }),
    ).toBe(1);
    expect(after.value("memory_runtime_http_requests_total", { route: "unmatched", status: "404" })).toBe(1);
    expect(after.value("memory_runtime_http_requests_total", { route: "/tenants/me", status: "401" })).toBe(
      1,
    );
    const latency = after.family("memory_runtime_http_request_duration_seconds");
    expect(latency.type).toBe("histogram");
    const search = after.samples("memory_runtime_http_request_duration_seconds", {
      method: "POST",
      route: "/memory/search",
      status: "200",
    });
    expect(search.map((s) => s.count)).toEqual([2]);
    expect(search[0]!.buckets!["+Inf"]).toBe(2);
    // Never a raw path, never a tenant id: not as a label value, not anywhere in the text.
    expect(after.text).not.toContain(tenant_id);
    expect(after.text).not.toContain(entryId);
    expect(after.text).not.toContain("/no/such/route");
    for (const value of after.labelValues()) expect(value).not.toMatch(/[0-9A-HJKMNP-TV-Z]{26}/);
  });

  test("actors, vault commits, search, embedding, webhooks and rate limits have their series", () => {
    expect(
      after.value("memory_runtime_actor_message_seconds", { kind: "tenant", message: "entry.create" }),
    ).toBe(2);
    expect(
      after.value("memory_runtime_actor_message_seconds", { kind: "system", outcome: "ok" }),
    ).toBeGreaterThan(0);
    expect(after.samples("memory_runtime_actor_mailbox_depth", { kind: "tenant" })).toHaveLength(1);
    expect(after.value("memory_runtime_actors_active", { kind: "tenant" })).toBe(1);
    expect(after.value("memory_runtime_vault_commit_seconds", { outcome: "ok" })).toBeGreaterThanOrEqual(3);
    expect(after.value("memory_runtime_vault_write_set_entries")).toBeGreaterThanOrEqual(3);
    expect(after.value("memory_runtime_search_seconds", { mode: "hybrid", outcome: "ok" })).toBe(2);
    expect(
      after.value("memory_runtime_embedding_seconds", { embedder: "hash", outcome: "ok" }),
    ).toBeGreaterThanOrEqual(4);
    expect(after.value("memory_runtime_embedding_texts_total", { embedder: "hash" })).toBeGreaterThanOrEqual(
      4,
    );
    expect(after.value("memory_runtime_webhook_events_total", { source: "data", outcome: "accepted" })).toBe(
      1,
    );
    expect(after.value("memory_runtime_webhook_rejections_total", { source: "data", status: "401" })).toBe(1);
    expect(after.value("memory_runtime_rate_limited_total", { class: "search" })).toBe(1);
    expect(after.family("memory_runtime_embedding_backlog").type).toBe("gauge");
    expect(after.family("memory_runtime_outbound_queued_events").type).toBe("gauge");
    expect(after.family("memory_runtime_connectors").type).toBe("gauge");
  });

  test("process and runtime metrics come with them", () => {
    expect(after.value("process_cpu_seconds_total")).toBeGreaterThan(0);
    expect(after.value("process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(after.family("nodejs_heap_size_used_bytes").type).toBe("gauge");
  });

  test("a later scrape sees the scrapes before it", async () => {
    const next = await scrape(h);
    const scrapes = { method: "GET", route: "/metrics", status: "200" };
    expect(next.value("memory_runtime_http_requests_total", scrapes)).toBe(
      after.value("memory_runtime_http_requests_total", scrapes) + 1,
    );
  });

  test("without a token: 401; with a tenant's token: 403; both problem documents", async () => {
    await expectProblem(await h.call("GET", "/metrics"), 401, "unauthorized");
    await expectProblem(await h.call("GET", "/metrics", { token: tenant.token }), 403, "forbidden");
    const hostile = await h.app.handle(
      new Request(`${BASE}/metrics`, { headers: { authorization: "Bearer not.a.jwt" } }),
    );
    await expectProblem(hostile, 401, "unauthorized");
  });

  test("the document declares the text exposition format and the refusals", async () => {
    const doc = (await (await h.call("GET", "/openapi/json")).json()) as OpenApiDoc;
    const op = doc.paths["/metrics"]!.get!;
    expect(Object.keys(op.responses[200]!.content)).toEqual(["text/plain; version=0.0.4"]);
    expect(Object.keys(op.responses[401]!.content)).toEqual(["application/problem+json"]);
    expect(Object.keys(op.responses[403]!.content)).toEqual(["application/problem+json"]);
  });
});
