import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { BASE, type Harness, startHarness } from "../helpers/harness.ts";

/** MCP's memory_search takes the search controls, and its write tools notice near-duplicates. */

let h: Harness;
let client: Client;
let token: string;

// biome-ignore lint/suspicious/noExplicitAny: tests read tool results field by field
type Json = any;

beforeAll(async () => {
  h = await startHarness();
  ({ token } = await h.createTenant());
  // The SDK client's requests go to the app in process through h.call (answers checked against the document).
  const inProcess = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(url.toString(), init);
    const raw = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
    return h.call(request.method, new URL(request.url).pathname, {
      raw,
      headers: Object.fromEntries(request.headers),
    });
  };
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
    fetch: inProcess,
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  client = new Client({ name: "mcp-controls-test", version: "1.0.0" });
  await client.connect(transport);
});
afterAll(async () => {
  await client.close();
  await h.close();
});

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

async function ok(name: string, args: Record<string, unknown>): Promise<Json> {
  const result = await call(name, args);
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  return result.structuredContent;
}

describe("memory_search", () => {
  test("advertises the controls in its input schema and explain in its output schema", async () => {
    const { tools } = await client.listTools();
    const search = tools.find((t) => t.name === "memory_search")!;
    const props = search.inputSchema.properties as Json;
    expect(Object.keys(props)).toEqual(
      expect.arrayContaining(["recency", "diversity", "max_tokens", "min_score", "explain"]),
    );
    expect(props.recency.properties.field.enum).toEqual(["valid_from", "recorded_at"]);
    expect(JSON.stringify(search.outputSchema)).toContain("matched_terms");
  });

  test("takes the same controls as POST /memory/search and answers the same", async () => {
    for (const content of [
      "Heron survey counted 40 nests",
      "Heron survey counted 41 nests",
      "Heron feeding grounds flooded in spring",
    ])
      await ok("memory_add", { category: "fact", content });
    const args = { query: "heron survey", limit: 2, diversity: 0.7, max_tokens: 100, explain: true };
    const found = await ok("memory_search", args);
    expect(found.results).toHaveLength(2);
    expect(found.results[0].explain.matched_terms).toEqual(["heron", "survey"]);
    expect(found.results[1].explain.redundancy).toBeGreaterThanOrEqual(0);
    const http = await h.json("POST", "/memory/search", { token, body: args });
    expect(found.results).toEqual(http.body.results);
  });

  test("refuses a control out of range as the route does (422)", async () => {
    const result = await call("memory_search", { query: "heron", diversity: 2 });
    expect(result.isError).toBe(true);
    const [text] = result.content as Array<{ text: string }>;
    expect(JSON.parse(text!.text)).toMatchObject({ status: 422, code: "validation_failed" });
  });
});

describe("memory_add", () => {
  test("lists near-duplicates in similar, and dedupe answers the existing entry", async () => {
    const first = await ok("memory_add", {
      category: "fact",
      content: "Kiln firing runs at 1240 degrees overnight",
    });
    const near = await ok("memory_add", { category: "fact", content: "Kiln firing runs at 1240 degrees" });
    expect(near.similar).toEqual([{ id: first.id, score: expect.any(Number) }]);
    expect(near.similar[0].score).toBeGreaterThanOrEqual(0.8);
    const deduped = await ok("memory_add", {
      category: "fact",
      content: "The kiln firing runs at 1240 degrees overnight!",
      dedupe: "similar",
    });
    expect(deduped.id).toBe(first.id);
    expect(deduped.similar).toEqual([{ id: near.id, score: near.similar[0].score }]);
  });
});

describe("status", () => {
  test("memory_search and memory_list take `status`: open problems in one call", async () => {
    const open = await ok("memory_add", {
      category: "exception",
      content: "The MCP export is stuck",
      severity: "high",
    });
    const resolved = await ok("memory_add", {
      category: "exception",
      content: "The MCP import was stuck, now fixed",
      status: "resolved",
    });
    const { tools } = await client.listTools();
    for (const name of ["memory_search", "memory_list"]) {
      const props = tools.find((t) => t.name === name)!.inputSchema.properties as Json;
      expect(props.status.enum ?? props.status.anyOf.map((s: Json) => s.const)).toEqual(["open", "resolved"]);
    }
    const found = await ok("memory_search", { query: "MCP stuck", status: "open" });
    expect(found.results.map((r: Json) => r.entry.id)).toEqual([open.id]);
    const listed = await ok("memory_list", { category: "exception", status: "resolved" });
    expect(listed.items.map((e: Json) => e.id)).toEqual([resolved.id]);
    expect((await call("memory_list", { category: "exception", status: "closed" })).isError).toBe(true);
  });
});
