import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

/**
 * The scope fields and filters on the other surfaces: export and import keep them, an export can
 * be scoped, the live stream refuses invalid filters, the MCP tools filter and restrict as the
 * routes do, and an entity's page shows a restricted token its reach only.
 */
let h: Harness;
let tenant: string;
let owner: string;
let ada: string;
const tag = `t${crypto.randomUUID().slice(0, 8)}`;
const ids: Record<string, string> = {};

beforeAll(async () => {
  h = await startHarness();
  ({ tenant_id: tenant, token: owner } = await h.createTenant());
  const rows: Array<[string, Record<string, string>]> = [
    ["ada", { subject: "ada", session_id: "s1", agent_id: "bot" }],
    ["bob", { subject: "bob", session_id: "s2" }],
    ["none", {}],
  ];
  for (const [name, scope] of rows) {
    const res = await h.json("POST", "/memory/facts", {
      token: owner,
      body: { content: `${tag} Grace Hopper likes tea ${name}`, tags: [tag], ...scope },
    });
    ids[name] = res.body.id;
  }
  const rel = await h.json("POST", "/memory/relationships", {
    token: owner,
    body: {
      content: `${tag} rel`,
      subject: "Grace Hopper",
      predicate: "knows",
      object: "Ada",
      scope_subject: "bob",
    },
  });
  ids.rel = rel.body.id;
  const minted = await h.json("POST", `/admin/jwt/${tenant}`, {
    token: h.adminToken,
    body: { roles: ["tenant_admin"], subject: "ada" },
  });
  ada = minted.body.token;
});
afterAll(() => h.close());

// biome-ignore lint/suspicious/noExplicitAny: lines are read field by field
const lines = (text: string): any[] =>
  text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe("export and import", () => {
  test("a whole export and its import keep subject, session_id, agent_id and scope_subject", async () => {
    const exported = await h.call("GET", `/admin/tenants/${tenant}/export`, { token: h.adminToken });
    expect(exported.status).toBe(200);
    const text = await exported.text();
    const fresh = await h.createTenant();
    const imported = await h.call("POST", `/admin/tenants/${fresh.tenant_id}/import`, {
      token: h.adminToken,
      raw: text,
      headers: { "content-type": "application/x-ndjson" },
    });
    expect(imported.status).toBe(200);
    const read = await h.json("GET", `/memory/facts/${ids.ada}`, { token: fresh.token });
    expect(read.body).toMatchObject({ subject: "ada", session_id: "s1", agent_id: "bot" });
    const rel = await h.json("GET", `/memory/relationships/${ids.rel}`, { token: fresh.token });
    expect(rel.body).toMatchObject({ subject: "Grace Hopper", scope_subject: "bob" });
    const filtered = await h.json("GET", `/memory/facts?tag=${tag}&subject=ada`, { token: fresh.token });
    expect(filtered.body.items.map((e: { id: string }) => e.id)).toEqual([ids.ada]);
  });

  test("a scoped export holds that scope's entries and embeddings only, and says its scope", async () => {
    const res = await h.call("GET", `/admin/tenants/${tenant}/export?subject=bob`, { token: h.adminToken });
    expect(res.status).toBe(200);
    const all = lines(await res.text());
    const [header] = all;
    expect(header.scope).toEqual({ subject: "bob" });
    const entries = all
      .filter((l) => l.type === "entry")
      .map((l) => l.value.entry.id)
      .sort();
    expect(entries).toEqual([ids.bob, ids.rel].sort());
    expect(res.headers.get("x-export-entries")).toBe("2");
    expect(header.counts.entries).toBe(2);
    const types = new Set(all.map((l) => l.type));
    for (const type of types) expect(["header", "entry", "embedding", "role", "trailer"]).toContain(type);
    const embedded = all.filter((l) => l.type === "embedding").map((l) => l.key);
    for (const id of embedded) expect(entries).toContain(id);
    expect(all.at(-1)).toMatchObject({
      type: "trailer",
      counts: { entries: 2, embeddings: embedded.length },
    });
    const audit = await h.json("GET", "/admin/audit/events?limit=20", { token: h.adminToken });
    const exported = audit.body.events.find((e: { action: string }) => e.action === "tenant.exported");
    expect(exported.details.scope).toEqual({ subject: "bob" });
    // It imports like any export: one subject's memory in a tenant of its own.
    const fresh = await h.createTenant();
    const imported = await h.call("POST", `/admin/tenants/${fresh.tenant_id}/import`, {
      token: h.adminToken,
      raw: `${all.map((l) => JSON.stringify(l)).join("\n")}\n`,
      headers: { "content-type": "application/x-ndjson" },
    });
    expect(imported.status).toBe(200);
    const list = await h.json("GET", `/memory/facts?tag=${tag}`, { token: fresh.token });
    expect(list.body.items.map((e: { id: string }) => e.id)).toEqual([ids.bob]);
  });

  test("an invalid export filter is a 422 naming it", async () => {
    const res = await h.call("GET", `/admin/tenants/${tenant}/export?session_id=a%20b`, {
      token: h.adminToken,
    });
    expect(JSON.stringify(await expectProblem(res, 422, "validation_failed"))).toContain("session_id");
  });
});

describe("live stream", () => {
  test("an invalid scope filter is a 422 naming it, before the stream opens", async () => {
    const res = await h.call("GET", "/memory/stream?subject=%2Fetc", { token: owner });
    expect(JSON.stringify(await expectProblem(res, 422, "validation_failed"))).toContain("subject");
  });
});

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

async function tool(token: string, name: string, args: Record<string, unknown>) {
  const res = await h.call("POST", "/mcp", {
    token,
    raw: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
    headers: MCP_HEADERS,
  });
  expect(res.status).toBe(200);
  // biome-ignore lint/suspicious/noExplicitAny: a JSON-RPC reply read field by field
  const reply = (await res.json()) as any;
  const text = reply.result.content.at(-1).text;
  return { isError: reply.result.isError === true, body: JSON.parse(text) };
}

describe("MCP", () => {
  test("memory_list and memory_search filter by subject, session_id and agent_id", async () => {
    const list = await tool(owner, "memory_list", { category: "fact", tag, session_id: "s2" });
    expect(list.body.items.map((e: { id: string }) => e.id)).toEqual([ids.bob]);
    const search = await tool(owner, "memory_search", { query: "tea", tags: [tag], agent_id: "bot" });
    expect(search.body.results.map((r: { entry: { id: string } }) => r.entry.id)).toEqual([ids.ada]);
  });

  test("a restricted token's tools see its reach, and writing another subject is a 403", async () => {
    const search = await tool(ada, "memory_search", { query: "tea", tags: [tag], limit: 50 });
    expect(search.body.results.map((r: { entry: { id: string } }) => r.entry.id).sort()).toEqual(
      [ids.ada, ids.none].sort(),
    );
    const added = await tool(ada, "memory_add", { category: "fact", content: `${tag} via mcp` });
    expect(added.body.subject).toBe("ada");
    const refused = await tool(ada, "memory_add", { category: "fact", content: "x", subject: "bob" });
    expect(refused.isError).toBe(true);
    expect(refused.body).toMatchObject({ status: 403, code: "forbidden" });
    expect(refused.body.detail).toContain("subject");
    const peek = await tool(ada, "memory_get", { category: "fact", id: ids.bob });
    expect(peek.body).toMatchObject({ status: 404 });
  });

  test("memory_add takes a relationship's own subject and another entry's scope id", async () => {
    const rel = await tool(owner, "memory_add", {
      category: "relationship",
      content: `${tag} via mcp rel`,
      subject: "Grace Hopper",
      predicate: "admires",
      object: "Ada",
      scope_subject: "ada",
    });
    expect(rel.isError).toBe(false);
    expect(rel.body).toMatchObject({ subject: "Grace Hopper", scope_subject: "ada" });
  });
});

describe("entities", () => {
  test("a restricted token's entity page shows its reach only", async () => {
    const all = await h.json("GET", `/memory/entities/${encodeURIComponent("Grace Hopper")}`, {
      token: owner,
    });
    if (all.status !== 200) return; // the entity index names people it recognises; nothing to compare
    const mine = await h.call("GET", `/memory/entities/${encodeURIComponent("Grace Hopper")}`, {
      token: ada,
    });
    const text = await mine.text();
    expect(text).not.toContain(ids.bob);
    expect(text).not.toContain(ids.rel);
  });
});
