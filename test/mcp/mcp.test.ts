import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { Forbidden } from "../../src/errors/domain-errors.ts";
import { toolError } from "../../src/mcp/results.ts";
import { putRole } from "../helpers/api.ts";
import { BASE, type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem, type ProblemBody } from "../helpers/problem.ts";

let h: Harness;
let tenantA: { tenant_id: string; token: string };
let tenantB: { tenant_id: string; token: string };
const clients: Client[] = [];

/**
 * The SDK client's HTTP requests, sent to the app in process (no port) through `h.call`, so each
 * answer the client gets is also checked against the OpenAPI document.
 */
async function inProcess(url: string | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(url.toString(), init);
  const raw = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
  const path = new URL(request.url).pathname;
  return h.call(request.method, path, { raw, headers: Object.fromEntries(request.headers) });
}

/** An MCP client of the SDK, talking to the app in process. */
async function connect(token?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
    fetch: inProcess,
    requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : undefined,
  });
  const client = new Client({ name: "mcp-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

// biome-ignore lint/suspicious/noExplicitAny: tests read tool results field by field
type Json = any;

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/**
 * A successful tool result: its structured content, after checking the text says the same (the
 * last text block; one carrying entries leads with them framed as evidence, src/mcp/evidence.ts).
 */
async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<Json> {
  const result = await call(client, name, args);
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  const text = (result.content as Array<{ type: string; text: string }>).at(-1);
  expect(JSON.parse(text!.text)).toEqual(result.structuredContent);
  return result.structuredContent;
}

/** A failed tool result: the problem document in its text, with the given status and code. */
async function refused(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  status: number,
  code: string,
) {
  const result = await call(client, name, args);
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const [text] = result.content as Array<{ type: string; text: string }>;
  const problem = JSON.parse(text!.text) as ProblemBody;
  expect({ status: problem.status, code: problem.code }).toEqual({ status, code });
  expect(problem.type).toBe(`/problems/${code}`);
  expect(problem.detail.length).toBeGreaterThan(0);
  return problem;
}

/** A role of tenant A holding `permissions`, and a token carrying it. */
async function tokenWith(role: string, permissions: string[]): Promise<string> {
  await putRole(h, tenantA.tenant_id, { name: role, permissions });
  return h.mint(tenantA.tenant_id, [role], `${role}-agent`);
}

const MCP_HEADERS = { accept: "application/json, text/event-stream", "content-type": "application/json" };

/** A raw JSON-RPC POST, as curl would send it. */
function post(body: string | object, opts: { token?: string; headers?: Record<string, string> } = {}) {
  const raw = typeof body === "string" ? body : JSON.stringify(body);
  return h.call("POST", "/mcp", { token: opts.token, raw, headers: { ...MCP_HEADERS, ...opts.headers } });
}

beforeAll(async () => {
  h = await startHarness();
  tenantA = await h.createTenant();
  tenantB = await h.createTenant();
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await h.close();
});

describe("tools/list", () => {
  test("lists the ten tools, each with object input and output schemas", async () => {
    const client = await connect(tenantA.token);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "conversation_add",
      "memory_add",
      "memory_context",
      "memory_entity",
      "memory_get",
      "memory_history",
      "memory_list",
      "memory_retract",
      "memory_search",
      "outcome_record",
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type).toBe("object");
      expect(JSON.stringify(tool.inputSchema)).not.toContain("Symbol");
    }
    const add = tools.find((t) => t.name === "memory_add")!;
    expect(add.inputSchema.required).toEqual(["category", "content"]);
    expect((add.inputSchema.properties as Json).category.enum).toEqual([
      "decision",
      "exception",
      "fact",
      "workflow",
      "relationship",
      "outcome",
    ]);
    expect((add.inputSchema.properties as Json).subject.description).toContain("required for relationship");
    const list = tools.find((t) => t.name === "memory_list")!;
    expect((list.inputSchema.properties as Json).limit).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 500,
    });
  });

  test("a raw tools/list POST (docs/mcp.md's curl) answers JSON with a request id", async () => {
    const res = await post({ jsonrpc: "2.0", id: 1, method: "tools/list" }, { token: tenantA.token });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("application/json");
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(res.headers.get("mcp-session-id")).toBeNull();
    const body = (await res.json()) as Json;
    expect(body.id).toBe(1);
    expect(body.result.tools).toHaveLength(10);
  });
});

describe("the tools round-trip with the HTTP API", () => {
  test("memory_add stores an entry that GET, memory_get, memory_list and memory_search all see", async () => {
    const client = await connect(tenantA.token);
    const entry = await ok(client, "memory_add", {
      category: "fact",
      content: "The warehouse in Lyon ships on Tuesdays",
      tags: ["logistics", "lyon"],
      data: { site: "LYS" },
    });
    expect(entry).toMatchObject({
      category: "fact",
      tenant_id: tenantA.tenant_id,
      created_by: "tenant-admin",
    });
    const http = await h.json("GET", `/memory/facts/${entry.id}`, { token: tenantA.token });
    expect(http.status).toBe(200);
    expect(http.body).toEqual(entry);

    expect(await ok(client, "memory_get", { category: "fact", id: entry.id })).toEqual(entry);
    const page = await ok(client, "memory_list", { category: "fact", tag: "lyon", limit: 5 });
    expect(page.items.map((e: Json) => e.id)).toEqual([entry.id]);
    expect(page).toEqual(
      (await h.json("GET", "/memory/facts?tag=lyon&limit=5", { token: tenantA.token })).body,
    );

    const found = await ok(client, "memory_search", {
      query: "Lyon warehouse shipping",
      categories: ["fact"],
    });
    expect(found.results[0].entry.id).toBe(entry.id);
    expect(found.results[0].score).toBeGreaterThan(0);
  });

  test("memory_add writes every category's typed fields; a relationship needs its own", async () => {
    const client = await connect(tenantA.token);
    const rel = await ok(client, "memory_add", {
      category: "relationship",
      content: "Ana works at Acme",
      subject: "Ana",
      predicate: "works_at",
      object: "Acme",
    });
    expect(rel).toMatchObject({ subject: "Ana", predicate: "works_at", object: "Acme" });
    const exc = await ok(client, "memory_add", {
      category: "exception",
      content: "Disk full",
      severity: "high",
    });
    expect(exc).toMatchObject({ severity: "high", status: "open" });
    const flow = await ok(client, "memory_add", {
      category: "workflow",
      content: "Refunds",
      steps: ["a", "b"],
    });
    expect(flow.steps).toEqual(["a", "b"]);
  });

  test("outcome_record resolves its decision, as POST /memory/outcomes does", async () => {
    const client = await connect(tenantA.token);
    const decision = await ok(client, "memory_add", {
      category: "decision",
      content: "Offer Globex a 10% discount",
      chosen: "discount",
      amount: 5000,
      currency: "EUR",
    });
    expect(decision.status).toBe("open");
    const outcome = await ok(client, "outcome_record", {
      content: "Globex signed",
      decision_id: decision.id,
      result: "success",
      amount: 48000,
      currency: "EUR",
    });
    expect(outcome).toMatchObject({ category: "outcome", decision_id: decision.id, result: "success" });
    const after = await h.json("GET", `/memory/decisions/${decision.id}`, { token: tenantA.token });
    expect(after.body.status).toBe("resolved");
    const outcomes = await ok(client, "memory_list", { category: "outcome" });
    expect(outcomes.items.map((e: Json) => e.id)).toContain(outcome.id);
  });
});

test("over a real socket on 127.0.0.1, with the SDK's own fetch", async () => {
  h.app.listen({ port: 0, hostname: "127.0.0.1" });
  try {
    const url = new URL(`http://127.0.0.1:${h.app.server!.port}/mcp`);
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${tenantA.token}` } },
    });
    const client = new Client({ name: "mcp-socket-test", version: "1.0.0" });
    await client.connect(transport);
    expect((await client.listTools()).tools).toHaveLength(10);
    const entry = await ok(client, "memory_add", { category: "fact", content: "Sent over a real socket" });
    const http = await fetch(new URL(`/memory/facts/${entry.id}`, url), {
      headers: { authorization: `Bearer ${tenantA.token}` },
    });
    expect(await http.json()).toEqual(entry);
    await client.close();
  } finally {
    await h.app.stop();
  }
});

describe("memory_retract and memory_history", () => {
  test("retract over MCP equals DELETE over HTTP; history tells both, with the MCP caller as actor", async () => {
    const client = await connect(tenantA.token);
    const fact = await ok(client, "memory_add", {
      category: "fact",
      content: `retract me ${crypto.randomUUID()}`,
    });
    const retracted = await ok(client, "memory_retract", { category: "fact", id: fact.id });
    expect(retracted.expired_at).not.toBeNull();
    const http = await h.json("GET", `/memory/facts/${fact.id}`, { token: tenantA.token });
    expect(http.body).toEqual(retracted);
    const trail = await ok(client, "memory_history", { category: "fact", id: fact.id });
    expect((trail.events as Json[]).map((e) => e.type)).toEqual(["created", "retracted"]);
    expect(trail).toEqual(
      (await h.json("GET", `/memory/facts/${fact.id}/history`, { token: tenantA.token })).body,
    );
  });

  test("memory_retract without write permission is 403 (audited); unknown ids are 404", async () => {
    const reader = await tokenWith("retract_reader", ["memory:read"]);
    const fact = await ok(await connect(tenantA.token), "memory_add", {
      category: "fact",
      content: `kept ${crypto.randomUUID()}`,
    });
    await refused(
      await connect(reader),
      "memory_retract",
      { category: "fact", id: fact.id },
      403,
      "forbidden",
    );
    const denials = await h.json("GET", `/admin/audit/denials/${tenantA.tenant_id}`, { token: h.adminToken });
    expect(denials.body.denials[0]).toMatchObject({ path: "/mcp", permission: "memory:write:facts" });
    await refused(
      await connect(tenantA.token),
      "memory_history",
      { category: "fact", id: "00000000" },
      404,
      "not_found",
    );
  });
});

describe("memory_entity", () => {
  test("answers what GET /memory/entities/{name} answers; unknown is 404, a bad name 422", async () => {
    const client = await connect(tenantA.token);
    const word = crypto
      .randomUUID()
      .replace(/[^a-f]/g, "")
      .padEnd(6, "e")
      .slice(0, 6);
    const name = `Zephyrine ${word[0]!.toUpperCase()}${word.slice(1)} Works`;
    await ok(client, "memory_add", {
      category: "relationship",
      content: `${name} supplies Borealis Foods`,
      subject: name,
      predicate: "supplies",
      object: "Borealis Foods",
    });
    await ok(client, "memory_add", { category: "fact", content: `We met ${name} at the fair` });
    const answer = await ok(client, "memory_entity", { name });
    expect(answer.relationships.map((r: Json) => [r.direction, r.other])).toEqual([
      ["outgoing", "Borealis Foods"],
    ]);
    expect(answer.entries.fact).toHaveLength(1);
    const http = await h.json("GET", `/memory/entities/${encodeURIComponent(name)}`, {
      token: tenantA.token,
    });
    expect(http.body).toEqual(answer);
    await refused(client, "memory_entity", { name: "Nobody Known Here" }, 404, "not_found");
    await refused(client, "memory_entity", { name: "<script>" }, 422, "validation_failed");
    await refused(client, "memory_entity", { name, colour: "red" }, 422, "validation_failed");
  });
});

describe("idempotency keys", () => {
  test("a retried memory_add or outcome_record with the same idempotency_key answers the first entry, writing once", async () => {
    const client = await connect(tenantA.token);
    const key = `retry-${crypto.randomUUID()}`;
    // No valid_from: without the key, each call would be a new entry (valid_from defaults to now).
    const first = await ok(client, "memory_add", {
      category: "fact",
      content: "paid by wire",
      idempotency_key: key,
    });
    const again = await ok(client, "memory_add", {
      category: "fact",
      content: "paid by wire",
      idempotency_key: key,
    });
    expect(again.id).toBe(first.id);
    const page = await ok(client, "memory_list", { category: "fact", limit: 100 });
    expect((page.items as Json[]).filter((e) => e.content === "paid by wire")).toHaveLength(1);
    // The same key with another body is the HTTP route's 422 idempotency_mismatch.
    await refused(
      client,
      "memory_add",
      { category: "fact", content: "paid in cash", idempotency_key: key },
      422,
      "idempotency_mismatch",
    );
    const decision = await ok(client, "memory_add", { category: "decision", content: "wire discount" });
    const args = {
      decision_id: decision.id,
      result: "success",
      content: "wired",
      idempotency_key: `o-${key}`,
    };
    const outcome = await ok(client, "outcome_record", args);
    expect((await ok(client, "outcome_record", args)).id).toBe(outcome.id);
  });

  test("a malformed idempotency_key is a 422", async () => {
    const client = await connect(tenantA.token);
    await refused(
      client,
      "memory_add",
      { category: "fact", content: "x", idempotency_key: "has space" },
      422,
      "validation_failed",
    );
    await refused(
      client,
      "memory_add",
      { category: "fact", content: "x", idempotency_key: "k".repeat(256) },
      422,
      "validation_failed",
    );
  });
});

describe("refusals are tool errors carrying the route's problem", () => {
  test("memory_add without memory:write is 403, recorded in the denial log with the /mcp path", async () => {
    const seeded = await h.json("POST", "/memory/facts", {
      token: tenantA.token,
      body: { content: "The warehouse restocks on Mondays", valid_from: "2025-01-01T00:00:00Z" },
    });
    expect(seeded.status).toBe(201);
    const reader = await connect(await tokenWith("reader", ["memory:read", "memory:search"]));
    const problem = await refused(
      reader,
      "memory_add",
      { category: "fact", content: "nope" },
      403,
      "forbidden",
    );
    expect(problem.detail).toContain("memory:write:facts");
    // The denial was committed before the reply: the audit log already has it.
    const log = await h.json("GET", `/admin/audit/denials/${tenantA.tenant_id}`, { token: h.adminToken });
    expect(log.body.denials[0]).toMatchObject({
      tenant_id: tenantA.tenant_id,
      sub: "reader-agent",
      roles: ["reader"],
      method: "POST",
      path: "/mcp",
      permission: "memory:write:facts",
    });
    // What the role does grant still works.
    expect((await ok(reader, "memory_search", { query: "warehouse" })).results.length).toBeGreaterThan(0);
  });

  test("a role narrowed to facts cannot search decisions by name", async () => {
    const narrow = await connect(await tokenWith("fact-searcher", ["memory:search:facts"]));
    await refused(narrow, "memory_search", { categories: ["decision"] }, 403, "forbidden");
  });

  test("the operator has no memory of its own: 403", async () => {
    const operator = await connect(h.adminToken);
    await refused(operator, "memory_list", { category: "fact" }, 403, "forbidden");
  });

  test("invalid arguments are a 422 tool error with the HTTP route's detail", async () => {
    const client = await connect(tenantA.token);
    const cases: Array<[string, Record<string, unknown>]> = [
      ["facts", { content: "" }],
      ["facts", { content: "x", subject: "a field of relationships" }],
      ["relationships", { content: "r", subject: "s" }],
      ["decisions", { content: "d", amount: "a lot" }],
      ["facts", { content: "x", valid_from: "last tuesday" }],
    ];
    const singular: Record<string, string> = {
      facts: "fact",
      relationships: "relationship",
      decisions: "decision",
    };
    for (const [plural, body] of cases) {
      const http = await h.call("POST", `/memory/${plural}`, { token: tenantA.token, body });
      const expected = await expectProblem(http, 422, "validation_failed");
      const problem = await refused(
        client,
        "memory_add",
        { category: singular[plural], ...body },
        422,
        "validation_failed",
      );
      expect({ detail: problem.detail, errors: problem.errors }).toEqual({
        detail: expected.detail,
        errors: expected.errors,
      });
    }
    // Each failing field once (a missing property is not listed again as "expected string").
    const missing = await refused(
      client,
      "memory_add",
      { category: "relationship", content: "r", subject: "s" },
      422,
      "validation_failed",
    );
    expect(missing.errors?.map((e: { path: string }) => e.path)).toEqual(["/predicate", "/object"]);
    await refused(client, "memory_add", { category: "facts", content: "x" }, 422, "validation_failed");
    await refused(client, "memory_get", { category: "fact", id: "NOT-HEX" }, 422, "validation_failed");
    await refused(client, "memory_list", { category: "fact", limit: "5" }, 422, "validation_failed");
    await refused(client, "memory_list", { category: "fact", colour: "red" }, 422, "validation_failed");
    await refused(client, "memory_search", { limit: 1000 }, 422, "validation_failed");
    await refused(
      client,
      "outcome_record",
      { content: "o", decision_id: "00000000", result: "success" },
      422,
      "validation_failed",
    );
  });

  test("a missing entry is 404", async () => {
    const client = await connect(tenantA.token);
    await refused(client, "memory_get", { category: "fact", id: "0badc0de" }, 404, "not_found");
  });

  test("tenant B cannot read tenant A's entry (404), nor write into tenant A (403)", async () => {
    const a = await connect(tenantA.token);
    const secret = await ok(a, "memory_add", { category: "fact", content: "Tenant A's private fact" });
    const b = await connect(tenantB.token);
    await refused(b, "memory_get", { category: "fact", id: secret.id }, 404, "not_found");
    const found = await ok(b, "memory_search", { query: "Tenant A's private fact" });
    expect(found.results).toEqual([]);
    await refused(
      b,
      "memory_add",
      { category: "fact", content: "x", tenant_id: tenantA.tenant_id },
      403,
      "forbidden",
    );
  });

  test("a tool error's problem carries the request's X-Request-Id", async () => {
    const get = { name: "memory_get", arguments: { category: "fact", id: "0badc0de" } };
    const res = await post(
      { jsonrpc: "2.0", id: 9, method: "tools/call", params: get },
      { token: tenantA.token, headers: { "x-request-id": "agent-run-42" } },
    );
    expect(res.headers.get("x-request-id")).toBe("agent-run-42");
    const reply = (await res.json()) as Json;
    expect(JSON.parse(reply.result.content[0].text)).toMatchObject({
      status: 404,
      request_id: "agent-run-42",
    });
  });

  test("an unknown tool is a protocol error, not a tool result", async () => {
    const client = await connect(tenantA.token);
    const error = await client.callTool({ name: "memory_delete", arguments: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    // It names the tools there are (issue 36), as tools/list shows them.
    const { tools } = await client.listTools();
    expect((error as McpError).message).toContain(
      `unknown tool: memory_delete; the tools are ${tools.map((t) => t.name).join(", ")}`,
    );
  });
});

describe("the endpoint over HTTP", () => {
  test("anonymous and badly signed requests are 401 problems, before the body is read", async () => {
    await expectProblem(await post({ jsonrpc: "2.0", id: 1, method: "tools/list" }), 401, "unauthorized");
    await expectProblem(await post("{not json", { token: "abc.def.ghi" }), 401, "unauthorized");
    const client = await connect().catch((e: unknown) => e);
    expect(String(client)).toContain("401");
  });

  test("GET and DELETE are 405 naming POST: a stateless server has no stream and no session", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await h.call(method, "/mcp", {
        token: tenantA.token,
        headers: { accept: "text/event-stream" },
      });
      await expectProblem(res, 405, "method_not_allowed");
      expect(res.headers.get("allow")).toBe("POST");
    }
  });

  test("a notification is accepted with 202 and no body", async () => {
    const res = await post({ jsonrpc: "2.0", method: "notifications/initialized" }, { token: tenantA.token });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe("");
  });

  test("the transport's own refusals are problem documents (406, 415)", async () => {
    const message = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    const token = tenantA.token;
    await expectProblem(
      await post(message, { token, headers: { accept: "application/json" } }),
      406,
      "not_acceptable",
    );
    const form = await post(message, { token, headers: { "content-type": "text/plain" } });
    await expectProblem(form, 415, "unsupported_media_type");
  });

  test("hostile and malformed JSON-RPC bodies are a clear 4xx, never a 500", async () => {
    const token = tenantA.token;
    const cases: Array<[string, string, number]> = [
      ["not JSON", "{jsonrpc: 2.0", 400],
      ["empty", "", 422],
      ["null", "null", 422],
      ["a number", "42", 422],
      ["a batch", JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "tools/list" }]), 422],
      ["deep nesting", `${"[".repeat(100_000)}${"]".repeat(100_000)}`, 422],
      ["wrong version", JSON.stringify({ jsonrpc: "1.0", id: 1, method: "tools/list" }), 422],
      ["method not a string", JSON.stringify({ jsonrpc: "2.0", id: 1, method: { toString: "x" } }), 422],
      ["id an object", JSON.stringify({ jsonrpc: "2.0", id: { a: 1 }, method: "tools/list" }), 422],
      ["params an array", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: [1] }), 422],
      // The route's schema is the SDK's message shape (src/mcp/model.ts): refused before the SDK.
      ["neither request nor response", JSON.stringify({ jsonrpc: "2.0", id: 1 }), 422],
      ["a request with a stray member", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", x: 1 }), 422],
      [
        "over the body limit",
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "x".repeat(2 * 1024 * 1024) }),
        413,
      ],
    ];
    for (const [name, body, status] of cases) {
      const res = await post(body, { token });
      expect({ name, status: res.status }).toEqual({ name, status });
      const codes: Record<number, string> = {
        400: "bad_request",
        413: "payload_too_large",
        422: "validation_failed",
      };
      await expectProblem(res, status, codes[status]!);
    }
    const bytes = h.call("POST", "/mcp", {
      token,
      raw: new Uint8Array([0x7b, 0xff, 0x7d]),
      headers: MCP_HEADERS,
    });
    await expectProblem(await bytes, 400, "bad_request");
  });

  test("hostile tool calls are JSON-RPC or tool errors, never a 500", async () => {
    const token = tenantA.token;
    const calls: Array<[string, unknown, "protocol" | "tool"]> = [
      ["arguments a string", { name: "memory_add", arguments: "x" }, "protocol"],
      ["name a number", { name: 7, arguments: {} }, "protocol"],
      [
        "arguments with __proto__",
        { name: "memory_add", arguments: JSON.parse('{"__proto__":{"category":"fact"},"content":"x"}') },
        "tool",
      ],
      [
        "content a toString trap",
        { name: "memory_add", arguments: { category: "fact", content: { toString: "x" } } },
        "tool",
      ],
      [
        "category constructor",
        { name: "memory_add", arguments: { category: "constructor", content: "x" } },
        "tool",
      ],
      ["unknown method", undefined, "protocol"],
    ];
    for (const [name, params, expected] of calls) {
      const method = params === undefined ? "resources/list" : "tools/call";
      const res = await post({ jsonrpc: "2.0", id: name, method, ...(params ? { params } : {}) }, { token });
      expect({ name, status: res.status }).toEqual({ name, status: 200 });
      const reply = (await res.json()) as Json;
      expect(reply.id).toBe(name);
      if (expected === "protocol") {
        expect(reply.error.code).toBeLessThan(0);
        expect(reply.error.message).not.toMatch(/\.ts:\d+/);
      } else {
        expect(reply.result.isError).toBe(true);
        expect(JSON.parse(reply.result.content[0].text).status).toBe(422);
      }
    }
  });
});

describe("denials are answered only once recorded", () => {
  const refusal = (recorded: Promise<void>) =>
    new Forbidden("no role grants memory:write", "memory:write", recorded);
  const quiet = () => undefined;

  test("the tool error waits for the denial's commit", async () => {
    let commit!: () => void;
    const recorded = new Promise<void>((resolve) => {
      commit = resolve;
    });
    let answered = false;
    const reply = toolError(refusal(recorded), "req-1", quiet).then((r) => {
      answered = true;
      return r;
    });
    for (let i = 0; i < 10; i++) await Promise.resolve();
    expect(answered).toBe(false);
    commit();
    const result = await reply;
    expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({
      status: 403,
      code: "forbidden",
    });
  });

  test("a denial that could not be recorded is answered 503, saying so", async () => {
    const lines: string[] = [];
    const result = await toolError(refusal(Promise.reject(new Error("disk full"))), "req-2", (l) =>
      lines.push(l),
    );
    expect(result.isError).toBe(true);
    const problem = JSON.parse((result.content[0] as { text: string }).text);
    expect(problem).toMatchObject({ status: 503, code: "unavailable", request_id: "req-2" });
    expect(problem.detail).toContain("could not be audited");
    expect(lines.join("\n")).toContain("denial could not be recorded");
  });
});
