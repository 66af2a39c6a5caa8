/**
 * Export and import of a tenant: GET /admin/tenants/{tenant_id}/export (NDJSON, streamed) and
 * POST /admin/tenants/{tenant_id}/import (streamed, all or nothing), through a real listening server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { open } from "lmdb";
import { Unavailable } from "../../src/errors/domain-errors.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { tenantDir } from "../../src/vault/tenant-paths.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { assertConforms } from "../helpers/openapi-conformance.ts";
import { expectProblem } from "../helpers/problem.ts";
import { PLURAL, setSecrets } from "../helpers/webhooks.ts";
import { Receiver } from "../outbound/receiver.ts";

let h: Harness;
let server: ReturnType<typeof Bun.serve>;
let base: string;
/** Time moves only when told: transaction times are set apart without waiting. */
const clock = new ManualClock(Date.UTC(2026, 10, 21, 10, 0, 0));

beforeAll(async () => {
  h = await startHarness({ clock });
  server = Bun.serve({ port: 0, fetch: (request) => h.app.handle(request), maxRequestBodySize: 2 ** 40 });
  base = `http://localhost:${server.port}`;
});
afterAll(async () => {
  server.stop(true);
  await h.close();
});

async function newTenant(name?: string): Promise<{ id: string; token: string }> {
  const { tenant_id, token } = await h.createTenant(name);
  return { id: tenant_id, token };
}

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
const UNKNOWN_TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";

/** A request through the listening server, its answer checked against the OpenAPI document. */
async function serve(method: string, path: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(base + path, { method, ...init });
  await assertConforms(h.app, method, path, res);
  return res;
}

function exportOf(tenantId: string, token = h.adminToken): Promise<Response> {
  return serve("GET", `/admin/tenants/${tenantId}/export`, { headers: { authorization: `Bearer ${token}` } });
}

function importInto(
  tenantId: string,
  body: string | ReadableStream<Uint8Array>,
  { token = h.adminToken, type = "application/x-ndjson" } = {},
): Promise<Response> {
  return serve("POST", `/admin/tenants/${tenantId}/import`, {
    headers: { authorization: `Bearer ${token}`, "content-type": type },
    body,
    duplex: "half",
  } as RequestInit);
}

// biome-ignore lint/suspicious/noExplicitAny: lines are read field by field
const parseLines = (text: string): any[] =>
  text
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l));
const joinLines = (lines: unknown[]) => `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;

/** The same value with every tenant id of `from` replaced by `to`. */
function retenanted<T>(value: T, from: string, to: string): T {
  return JSON.parse(JSON.stringify(value).replaceAll(from, to));
}

async function create(token: string, category: string, body: object, headers: Record<string, string> = {}) {
  const res = await h.json("POST", `/memory/${PLURAL[category]}`, { token, body, headers });
  expect({ status: res.status, body: res.body }).toMatchObject({ status: 201 });
  return res.body as { id: string; recorded_at: string };
}

function sendData(tenantId: string, secret: string, body: object) {
  return h.json("POST", `/webhooks/data/${tenantId}`, {
    raw: JSON.stringify(body),
    headers: { "content-type": "application/json", authorization: `Bearer ${secret}` },
  });
}

const registry = (event: string, model: string, version: string, ts: number, extra: object = {}) => ({
  event,
  webhook_id: "wh-1",
  event_timestamp: ts,
  model_name: model,
  version,
  ...extra,
});

interface Source {
  id: string;
  token: string;
  ids: Array<{ id: string; category: string }>;
  /** The clock's time when the first writes were made: valid times are set from it. */
  now: number;
  /** A transaction time between the first writes and the supersession and correction. */
  between: string;
  dataSecret: string;
  outboundSecret: string;
  created: ReturnType<typeof registry>;
  idempotent: { key: string; body: object; id: string };
}

/**
 * A tenant with every category, tags, typed fields, an outcome resolving its decision, a
 * supersession, a correction, a retraction, an erasure (its tombstone), connector-written entries
 * with objects and dedupe records, a dead letter, an idempotent write, connector state, a role,
 * per-tenant webhook secrets and an outbound subscription's secret in its vault.
 */
async function sourceTenant(): Promise<Source> {
  const { id, token } = await newTenant();
  const now = clock.now();
  const dataSecret = `data-${crypto.randomUUID()}`;
  const outboundSecret = `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64")}`;
  setSecrets(h, id, { DATA_WEBHOOK_TOKEN: dataSecret, CRM_WEBHOOK_SECRET: `crm-${crypto.randomUUID()}` });
  const role = await h.json("POST", `/admin/roles/${id}`, {
    token: h.adminToken,
    body: { name: "agent", permissions: ["memory:read", "memory:write:facts"], description: "an agent" },
  });
  expect(role.status).toBe(201);

  const ids: Array<{ id: string; category: string }> = [];
  const add = async (category: string, body: object, headers: Record<string, string> = {}) => {
    const entry = await create(token, category, body, headers);
    ids.push({ id: entry.id, category });
    return entry;
  };
  const decision = await add("decision", {
    content: "Ship tenant export and import in the next release",
    tags: ["roadmap", "q4"],
    rationale: "operators move tenants between hosts",
    options: ["ship", "wait"],
    chosen: "ship",
    amount: 1200.5,
    currency: "EUR",
    stage: "approved",
    valid_from: iso(now - 3 * DAY),
  });
  const exception = await add("exception", {
    content: "The nightly backup of the vault failed twice",
    tags: ["ops"],
    severity: "high",
    valid_from: iso(now - 2 * DAY),
  });
  const fact = await add("fact", {
    content: "Each tenant vault is one LMDB environment",
    tags: ["storage", "ops"],
    data: { engine: "lmdb", version: 3 },
    valid_from: iso(now - 2 * DAY),
    valid_to: iso(now + 30 * DAY),
  });
  await add("workflow", {
    content: "Moving a tenant: export, create, import, verify",
    steps: ["export", "create", "import", "verify"],
    tags: ["ops"],
  });
  await add("relationship", {
    content: "Ada works at Analytical Engines",
    subject: "Ada",
    predicate: "works_at",
    object: "Analytical Engines",
  });
  const retracted = await add("fact", {
    content: "The vault keeps a second copy in memory",
    tags: ["storage"],
  });
  const erased = await add("fact", { content: "A customer's phone number is 555-0100", tags: ["pii"] });
  const key = `idem-${crypto.randomUUID()}`;
  const idemBody = { content: "Imports restore the change log positions", tags: ["storage"] };
  const idem = await add("fact", idemBody, { "idempotency-key": key });
  await add("outcome", {
    content: "The export shipped on time",
    decision_id: decision.id,
    result: "success",
    amount: 1200.5,
    currency: "EUR",
  });
  clock.advance(60_000);
  // A transaction time between the writes above and those below: `as_of = between` sees the earlier state.
  const between = iso(clock.now());
  clock.advance(60_000);
  await add("fact", {
    content: "Each tenant vault is one LMDB environment, opened lazily",
    supersedes: fact.id,
    valid_from: iso(now - DAY),
    tags: ["storage"],
  });
  await add("exception", {
    content: "The nightly backup failed once",
    corrects: exception.id,
    severity: "medium",
  });
  expect((await h.json("DELETE", `/memory/facts/${retracted.id}`, { token })).status).toBe(200);

  // Connector-written entries (objects, dedupe records, a supersession) and a dead letter.
  const created = registry("MODEL_VERSION_CREATED", "churn", "1", now - 5000, { text: "baseline" });
  for (const body of [
    created,
    registry("MODEL_VERSION_TRANSITIONED_STAGE", "churn", "1", now - 4000, { to_stage: "Staging" }),
    registry("MODEL_VERSION_TRANSITIONED_STAGE", "churn", "1", now - 3000, {
      from_stage: "Staging",
      to_stage: "Production",
    }),
    registry("MODEL_VERSION_DELETED", "churn", "0", now - 2000),
  ]) {
    const res = await sendData(id, dataSecret, body);
    expect(res.status).toBe(200);
    for (const entry of res.body.entries as string[])
      ids.push({ id: entry, category: body.event === "MODEL_VERSION_CREATED" ? "fact" : "decision" });
  }
  const tenant = h.runtime.services.tenant(id);
  await tenant.ask({ type: "connector.state.put", key: "crm:replay", value: { "/data/ChangeEvents": 42 } });
  await tenant.ask({
    type: "connector.state.put",
    key: "status:crm",
    value: { state: "connected", events: 3 },
  });

  const erase = await h.json("POST", `/admin/tenants/${id}/erase`, {
    token: h.adminToken,
    body: { ids: [erased.id] },
  });
  expect(erase.status).toBe(200);
  ids.splice(
    ids.findIndex((x) => x.id === erased.id),
    1,
  );

  // An outbound subscription's secret, where outbound events keep theirs: a database of the vault.
  const env = open({ path: tenantDir(h.dataDir, id), compression: false, maxDbs: 32 });
  await env.openDB({ name: "outbound-subscriptions" }).put("sub_test", { secret: outboundSecret });
  await env.close();

  return {
    id,
    token,
    ids,
    now,
    between,
    dataSecret,
    outboundSecret,
    created,
    idempotent: { key, body: idemBody, id: idem.id },
  };
}

describe("export and import round trip", () => {
  const B_NAME = `Imported ${crypto.randomUUID()}`;
  let a: Source;
  let b: { id: string; token: string };
  let text: string;
  let exportRes: Response;
  // biome-ignore lint/suspicious/noExplicitAny: the import's answer, read field by field
  let imported: any;

  beforeAll(async () => {
    a = await sourceTenant();
    exportRes = await exportOf(a.id);
    text = await exportRes.text();
    b = await newTenant(B_NAME);
    const res = await importInto(b.id, text);
    imported = await res.json();
    expect({ status: res.status, imported }).toMatchObject({ status: 200 });
  });

  /**
   * `b` is only read, so that every comparison of `a` and `b` holds in any order: a test that
   * writes (or sends) to an imported tenant imports the export into a tenant of its own.
   */
  async function importedCopy(): Promise<{ id: string; token: string }> {
    const copy = await newTenant();
    expect((await importInto(copy.id, text)).status).toBe(200);
    return copy;
  }

  test("the export is NDJSON: a header, records and a trailer with the counts written", () => {
    expect(exportRes.headers.get("content-type")).toStartWith("application/x-ndjson");
    expect(exportRes.headers.get("x-request-id")).toBeTruthy();
    const lines = parseLines(text);
    const header = lines[0];
    const trailer = lines[lines.length - 1];
    expect(header).toMatchObject({
      type: "header",
      format: "typed-memory-runtime/tenant-export",
      version: 1,
      tenant_id: a.id,
      embedding_dims: 384,
    });
    expect(Number(exportRes.headers.get("x-export-entries"))).toBe(a.ids.length);
    expect(header.counts.entries).toBe(a.ids.length);
    expect(trailer).toEqual({ type: "trailer", counts: header.counts });
    const byType: Record<string, number> = {};
    for (const line of lines.slice(1, -1)) byType[line.type] = (byType[line.type] ?? 0) + 1;
    expect(byType).toMatchObject({
      entry: a.ids.length,
      embedding: a.ids.length,
      dead_letter: 1,
      role: 1,
      tombstone: 1,
      connector_state: 2,
      idempotency: 1,
    });
    expect(byType.dedupe).toBe(4);
    expect(byType.object).toBeGreaterThanOrEqual(2);
    expect(byType.change).toBeGreaterThan(a.ids.length);
    expect(byType.counter).toBeGreaterThan(0);
    expect(imported.imported).toEqual(header.counts);
    expect(imported).toMatchObject({ tenant_id: b.id, source_tenant_id: a.id });
  });

  test("the export holds no secret and nothing of the outbound databases", () => {
    expect(text).not.toContain(a.dataSecret);
    expect(text).not.toContain(a.outboundSecret);
    expect(text).not.toContain("outbound");
    expect(text).not.toContain(h.env.MEMORY_RUNTIME_JWT_SECRET!);
    for (const value of Object.values(h.env))
      if (value && value.length >= 16) expect(text).not.toContain(value);
    // Nor the erased entry's content: only its tombstone.
    expect(text).not.toContain("555-0100");
  });

  test("every entry reads the same in the new tenant, but for its tenant_id; embeddings too", async () => {
    for (const { id, category } of a.ids) {
      const path = `/memory/${PLURAL[category]}/${id}?include=embedding`;
      const before = await h.json("GET", path, { token: a.token });
      const after = await h.json("GET", path, { token: b.token });
      expect(before.status).toBe(200);
      expect(after.status).toBe(200);
      expect(after.body.tenant_id).toBe(b.id);
      expect(after.body).toEqual({ ...before.body, tenant_id: b.id });
    }
    const erased = parseLines(text).find((l) => l.type === "tombstone").key;
    const gone = await h.call("GET", `/memory/facts/${erased}`, { token: b.token });
    await expectProblem(gone, 410, "gone");
  });

  test("lists, tags, as_of and valid_at views are the same", async () => {
    const views = [
      "",
      `&as_of=${encodeURIComponent(a.between)}`,
      `&valid_at=${encodeURIComponent(iso(a.now - 2.5 * DAY))}`,
      `&valid_at=${encodeURIComponent(iso(a.now - 1.5 * DAY))}&as_of=${encodeURIComponent(a.between)}`,
      "&tag=storage",
      "&tag=ops&limit=1",
    ];
    for (const category of Object.keys(PLURAL)) {
      for (const view of views) {
        const path = `/memory/${PLURAL[category]}?limit=500${view}`;
        const before = await h.json("GET", path, { token: a.token });
        const after = await h.json("GET", path, { token: b.token });
        expect(before.status).toBe(200);
        expect(after.body).toEqual(retenanted(before.body, a.id, b.id));
      }
    }
    const asOf = await h.json("GET", `/memory/facts?limit=500&as_of=${encodeURIComponent(a.between)}`, {
      token: b.token,
    });
    expect(asOf.body.items.length).toBeGreaterThan(0);
  });

  test("search results are the same: ids, scores and entries", async () => {
    for (const body of [
      { query: "tenant vault LMDB environment", limit: 20 },
      { query: "backup failed", categories: ["exception"], limit: 5 },
      { query: "export import release", tags_any: ["roadmap", "storage"], limit: 10 },
      { tags: ["ops"], limit: 10 },
      { query: "model churn promoted", as_of: a.between, limit: 10 },
    ]) {
      const before = await h.json("POST", "/memory/search", { token: a.token, body });
      const after = await h.json("POST", "/memory/search", { token: b.token, body });
      expect(before.status).toBe(200);
      expect(after.status).toBe(200);
      expect(after.body.results).toEqual(retenanted(before.body.results, a.id, b.id));
    }
    const sample = await h.json("POST", "/memory/search", {
      token: b.token,
      body: { query: "tenant vault LMDB environment", limit: 3 },
    });
    expect(sample.body.results.length).toBeGreaterThan(0);
  });

  test("the change log, entry histories, dead letters, roles, counters and connector state are the same", async () => {
    const log = async (tenantId: string) =>
      h.runtime.services.tenant(tenantId).ask({ type: "changes.since", after: 0, limit: 10_000 });
    const [before, after] = [await log(a.id), await log(b.id)];
    expect(before.changes.length).toBeGreaterThan(a.ids.length);
    expect(after).toEqual(before);
    for (const { id, category } of a.ids.slice(0, 6)) {
      const path = `/memory/${PLURAL[category]}/${id}/history`;
      const x = await h.json("GET", path, { token: a.token });
      const y = await h.json("GET", path, { token: b.token });
      expect(y.body).toEqual(retenanted(x.body, a.id, b.id));
    }
    const letters = async (tenantId: string) =>
      (await h.json("GET", `/admin/webhooks/dead-letters/${tenantId}`, { token: h.adminToken })).body;
    const deadBefore = await letters(a.id);
    expect(deadBefore.dead_letters).toHaveLength(1);
    expect(await letters(b.id)).toEqual(retenanted(deadBefore, a.id, b.id));
    const roles = async (tenantId: string) =>
      (await h.json("GET", `/admin/roles/${tenantId}`, { token: h.adminToken })).body;
    expect(await roles(b.id)).toEqual(await roles(a.id));
    const stats = (tenantId: string) =>
      h.runtime.services
        .tenant(tenantId)
        .ask({ type: "tenant.stats", fromDay: "2000-01-01", toDay: "2100-01-01" });
    expect(await stats(b.id)).toEqual(await stats(a.id));
    const state = (tenantId: string) =>
      h.runtime.services.tenant(tenantId).ask({ type: "connector.state.get", key: "crm:replay" });
    expect(await state(b.id)).toEqual({ "/data/ChangeEvents": 42 });
    const health = async (tenantId: string) =>
      (await h.json("GET", `/tenants/${tenantId}/healthz`, { token: h.adminToken })).body;
    const [ha, hb] = [await health(a.id), await health(b.id)];
    expect(hb.vault).toEqual(ha.vault);
    expect(hb.index.vectors).toBe(ha.index.vectors);
    expect(hb.dead_letters).toBe(ha.dead_letters);
  });

  test("a redelivered webhook stays a duplicate; an idempotent retry answers the first entry", async () => {
    const copy = await importedCopy();
    setSecrets(h, copy.id, { DATA_WEBHOOK_TOKEN: a.dataSecret });
    const again = await sendData(copy.id, a.dataSecret, a.created);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ accepted: 0, duplicates: 1, entries: [] });
    const retry = await h.json("POST", "/memory/facts", {
      token: copy.token,
      body: a.idempotent.body,
      headers: { "idempotency-key": a.idempotent.key },
    });
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ id: a.idempotent.id, tenant_id: copy.id });
  });

  test("the new tenant goes on writing after the imported sequences and positions", async () => {
    const copy = await importedCopy();
    const entry = await create(copy.token, "fact", {
      content: "Written after the import",
      tags: ["storage"],
    });
    const list = await h.json("GET", "/memory/facts?limit=1", { token: copy.token });
    expect(list.body.items[0].id).toBe(entry.id);
    const log = await h.runtime.services
      .tenant(copy.id)
      .ask({ type: "changes.since", after: 0, limit: 10_000 });
    const last = log.changes[log.changes.length - 1]!;
    expect(last).toMatchObject({ type: "entry.created", id: entry.id });
    expect(last.seq).toBeGreaterThan(log.changes[log.changes.length - 2]!.seq);
  });

  test("an export of the imported tenant is the export of the source, but for the tenant", async () => {
    const res = await exportOf(b.id);
    const [header, ...records] = parseLines(await res.text());
    const [firstHeader, ...firstRecords] = parseLines(text);
    // Nothing writes to `b` (see importedCopy): every record is the source's, counters and dedupe too.
    expect(header).toEqual({
      ...retenanted(firstHeader, a.id, b.id),
      tenant_name: B_NAME,
      exported_at: iso(clock.now()),
    });
    expect(records).toEqual(retenanted(firstRecords, a.id, b.id));
  });

  test("a subscription made before the import is sent what happens after it, not the imported history", async () => {
    const receiver = await Receiver.start();
    try {
      const c = await newTenant();
      const sub = await h.json("POST", `/admin/subscriptions/${c.id}`, {
        token: h.adminToken,
        body: { url: receiver.url(), events: ["entry.created", "entry.superseded", "decision.resolved"] },
      });
      expect(sub.status).toBe(201);
      expect((await importInto(c.id, text)).status).toBe(200);
      const fresh = await create(c.token, "fact", { content: "written after the import" });
      const [first] = await receiver.waitFor(1);
      const event = first!.json as { type: string; data: { entry: { id: string } } };
      expect({ type: event.type, id: event.data.entry.id }).toEqual({ type: "entry.created", id: fresh.id });
    } finally {
      await receiver.stop();
    }
  });

  test("importing into a tenant that is not empty is a 409", async () => {
    const copy = await importedCopy();
    await expectProblem(await importInto(copy.id, text), 409, "conflict");
  });
});

describe("refusals", () => {
  let a: { id: string; token: string };
  let text: string;

  beforeAll(async () => {
    a = await newTenant();
    for (let i = 0; i < 3; i++) await create(a.token, "fact", { content: `fact number ${i}`, tags: ["t"] });
    text = await (await exportOf(a.id)).text();
  });

  test("a tenant token gets 403 on both routes; an unknown or malformed tenant 404", async () => {
    await expectProblem(await exportOf(a.id, a.token), 403, "forbidden");
    const fresh = await newTenant();
    await expectProblem(await importInto(fresh.id, text, { token: fresh.token }), 403, "forbidden");
    await expectProblem(await exportOf(UNKNOWN_TENANT), 404, "not_found");
    await expectProblem(await exportOf("not-a-ulid"), 404, "not_found");
    await expectProblem(await importInto(UNKNOWN_TENANT, text), 404, "not_found");
    const anonymous = await serve("GET", `/admin/tenants/${a.id}/export`);
    await expectProblem(anonymous, 401, "unauthorized");
  });

  test("a body that is not NDJSON is a 415; a JSON route sent NDJSON is a 415", async () => {
    const fresh = await newTenant();
    await expectProblem(
      await importInto(fresh.id, '{"type":"header"}', { type: "application/json" }),
      415,
      "unsupported_media_type",
    );
    const mcp = await h.call("POST", "/mcp", {
      token: h.adminToken,
      raw: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n',
      headers: { "content-type": "application/x-ndjson", accept: "application/json, text/event-stream" },
    });
    await expectProblem(mcp, 415, "unsupported_media_type");
  });

  test("a malformed line is a 422 naming its line, and nothing of the import is kept", async () => {
    const lines = parseLines(text);
    const cases: Array<{ body: string; line: number }> = [
      { body: joinLines([lines[0], ...lines.slice(1, 3)]).concat("{not json\n"), line: 4 },
      {
        body: joinLines([
          lines[0],
          { ...lines[1], value: { ...lines[1].value, seq: "one" } },
          ...lines.slice(2),
        ]),
        line: 2,
      },
      { body: joinLines([lines[0], { type: "secret", value: 1 }, ...lines.slice(1)]), line: 2 },
      { body: joinLines(lines.slice(1)), line: 1 },
      { body: joinLines([...lines, lines[1]]), line: lines.length + 1 },
      {
        body: joinLines([
          ...lines.slice(0, -1),
          { ...lines[lines.length - 1], counts: { ...lines[0].counts, entries: 9 } },
        ]),
        line: lines.length,
      },
    ];
    const fresh = await newTenant();
    for (const { body, line } of cases) {
      const problem = await expectProblem(await importInto(fresh.id, body), 422, "validation_failed");
      expect(problem.detail).toStartWith(`line ${line}:`);
    }
    // Cut short: no trailer.
    const cut = await expectProblem(
      await importInto(fresh.id, joinLines(lines.slice(0, -1))),
      422,
      "validation_failed",
    );
    expect(cut.detail).toContain("trailer");
    const health = await h.json("GET", `/tenants/${fresh.id}/healthz`, { token: h.adminToken });
    expect(health.body.vault.entries).toBe(0);
    // And the tenant takes the whole export afterwards.
    const ok = await importInto(fresh.id, text);
    expect(ok.status).toBe(200);
  });

  test("an import failing after batches were written leaves the tenant empty", async () => {
    const src = await newTenant();
    const tenant = h.runtime.services.tenant(src.id);
    for (let i = 0; i < 1500; i++)
      await tenant.ask({
        type: "entry.create",
        draft: { category: "fact", content: `bulk fact ${i}`, tags: [`t${i % 7}`] },
        createdBy: "bulk",
      });
    const lines = parseLines(await (await exportOf(src.id)).text());
    expect(lines.length).toBeGreaterThan(3000);
    // A bad record near the end, after two batches have been written.
    const bad = lines.length - 3;
    lines[bad] = { type: "change", value: { seq: 1, at: "yesterday" } };
    const fresh = await newTenant();
    const problem = await expectProblem(
      await importInto(fresh.id, joinLines(lines)),
      422,
      "validation_failed",
    );
    expect(problem.detail).toStartWith(`line ${bad + 1}:`);
    const log = await h.runtime.services.tenant(fresh.id).ask({ type: "changes.since", after: 0, limit: 10 });
    expect(log).toEqual({ changes: [], last: 0 });
    const page = await h.json("GET", "/memory/facts?limit=5", { token: fresh.token });
    expect(page.body.items).toEqual([]);
    const stats = await h.runtime.services
      .tenant(fresh.id)
      .ask({ type: "tenant.stats", fromDay: "2000-01-01", toDay: "2100-01-01" });
    expect(stats.entries_per_category.fact).toBe(0);
    expect(stats.writes_per_day).toEqual([]);
  });

  test("a line over the limit is a 413 naming the line, read no further", async () => {
    const lines = parseLines(text);
    const huge = { type: "connector_state", key: "big", value: "x".repeat(4 * 1024 * 1024 + 10) };
    const fresh = await newTenant();
    const problem = await expectProblem(
      await importInto(fresh.id, joinLines([lines[0], huge, ...lines.slice(1)])),
      413,
      "payload_too_large",
    );
    expect(problem.detail).toStartWith("line 2 ");
  });

  test("a second import while one runs is a 409; other messages meanwhile are refused (503)", async () => {
    const fresh = await newTenant();
    const tenant = h.runtime.services.tenant(fresh.id);
    const { session } = await tenant.ask({ type: "import.begin" });
    await expect(tenant.ask({ type: "import.begin" })).rejects.toMatchObject({ status: 409 });
    await expect(
      tenant.ask({
        type: "entry.list",
        category: "fact",
        limit: 5,
        validAt: clock.now(),
        asOf: clock.now(),
        includeEmbedding: false,
      }),
    ).rejects.toBeInstanceOf(Unavailable);
    const res = await importInto(fresh.id, text);
    await expectProblem(res, 409, "conflict");
    expect((await tenant.ask({ type: "tenant.health" })).vault.entries).toBe(0);
    await tenant.ask({ type: "import.abort", session });
    await expect(tenant.ask({ type: "export.open" })).rejects.toBeInstanceOf(Unavailable);
  });

  test("an import the process did not live to finish is dropped when the vault opens again", async () => {
    const fresh = await newTenant();
    const lines = parseLines(text);
    const tenant = h.runtime.services.tenant(fresh.id);
    const { session } = await tenant.ask({ type: "import.begin" });
    const records = lines
      .slice(1, -1)
      .filter((l) => l.type !== "role" && l.type !== "connector_state")
      .map((record, i) => ({ line: i + 2, record: retenanted(record, a.id, fresh.id) }));
    await tenant.ask({ type: "import.batch", session, records });
    expect((await tenant.ask({ type: "tenant.health" })).vault.entries).toBe(3);
    await h.restart();
    const after = h.runtime.services.tenant(fresh.id);
    expect((await after.ask({ type: "tenant.health" })).vault.entries).toBe(0);
    expect(await after.ask({ type: "changes.since", after: 0, limit: 10 })).toEqual({ changes: [], last: 0 });
    await expect(after.ask({ type: "import.batch", session, records })).rejects.toBeInstanceOf(Unavailable);
    const ok = await importInto(fresh.id, text);
    expect(ok.status).toBe(200);
    const page = await h.json("GET", "/memory/facts?limit=5", { token: fresh.token });
    expect(page.body.items).toHaveLength(3);
  });

  interface AuditEvent {
    action: string;
    tenant_id: string;
    target: string | null;
    details: object;
  }
  const auditEvents = async (): Promise<AuditEvent[]> =>
    (await h.json("GET", "/admin/audit/events?limit=200", { token: h.adminToken })).body.events;
  const exportOfA = (e: AuditEvent) => e.action === "tenant.exported" && e.tenant_id === a.id;

  test("the admin audit records both", async () => {
    // Its own export and import: what other tests exported or imported may not have run.
    const fresh = await newTenant();
    // The group's setup exported a too: this test's export is the one more row it makes.
    const exportsBefore = (await auditEvents()).filter(exportOfA).length;
    const exported = await exportOf(a.id);
    const counts = parseLines(await exported.text())[0].counts;
    const res = await importInto(fresh.id, text);
    expect(res.status).toBe(200);
    const { imported } = (await res.json()) as { imported: object };
    const events = await auditEvents();
    expect(events.filter(exportOfA)).toHaveLength(exportsBefore + 1);
    // Newest first: the first of each action for these tenants is this test's.
    expect(events.find(exportOfA)?.details).toEqual({ counts });
    expect(events.find((e) => e.action === "tenant.imported" && e.tenant_id === fresh.id)).toMatchObject({
      target: a.id,
      details: { imported },
    });
  });
});
