import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { BASE, type Harness, startHarness } from "../helpers/harness.ts";

let h: Harness;
let client: Client;

/** The SDK client's requests go to the app in process, each answer checked against the document. */
async function inProcess(url: string | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(url.toString(), init);
  const raw = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
  return h.call(request.method, new URL(request.url).pathname, {
    raw,
    headers: Object.fromEntries(request.headers),
  });
}

beforeAll(async () => {
  h = await startHarness();
  const { token } = await h.createTenant("conversation-mcp");
  client = new Client({ name: "conversation-mcp-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
      fetch: inProcess,
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
});
afterAll(async () => {
  await client.close();
  await h.close();
});

const call = async (name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

test("conversation_add is listed with the route's schema", async () => {
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === "conversation_add");
  expect(tool?.inputSchema.required).toEqual(["session_id", "messages"]);
  expect(tool?.annotations?.idempotentHint).toBe(true);
});

test("conversation_add keeps the turns and answers what it extracted, as the route does", async () => {
  const args = {
    session_id: "mcp-1",
    subject: "user-7",
    messages: [
      { role: "user", content: "I moved to Lima last spring.", at: "2026-02-01T10:00:00Z" },
      { role: "assistant", content: "Noted.", at: "2026-02-01T10:00:05Z" },
    ],
  };
  const first = await call("conversation_add", args);
  expect(first.isError ?? false).toBe(false);
  const body = first.structuredContent as {
    turns: Array<{ status: number; entry: { content: string } }>;
    extracted: Array<{ kind: string; entry: { content: string } }>;
  };
  expect(body.turns.map((t) => [t.status, t.entry.content])).toEqual([
    [201, "user: I moved to Lima last spring."],
    [201, "assistant: Noted."],
  ]);
  expect(body.extracted.map((x) => x.kind)).toEqual(["personal"]);
  const again = await call("conversation_add", args);
  expect((again.structuredContent as typeof body).turns.map((t) => t.status)).toEqual([200, 200]);
  const found = await call("memory_search", { query: "Lima", tags: ["extracted"] });
  expect(JSON.stringify(found.structuredContent)).toContain("I moved to Lima last spring.");
});

test("bad arguments are a tool error naming the field", async () => {
  const result = await call("conversation_add", { session_id: "mcp-2", messages: [] });
  expect(result.isError).toBe(true);
  expect(JSON.stringify(result.content)).toContain("/messages");
});
