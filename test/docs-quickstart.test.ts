import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { DOC_ADDRESS as ADDRESS, runDocShell } from "./helpers/doc-shell.ts";
import { fencedBlocksOf, jsonValues } from "./helpers/markdown.ts";
import { killHard, type ServerProcess } from "./helpers/server-process.ts";
import { ROOT } from "./helpers/spawn.ts";

/**
 * docs/quickstart-agent-memory.md runs as written: its shell blocks in order, in one bash, against
 * a real server (the service's address swapped for the test's), then an MCP client connects with
 * the page's configuration and the token the blocks minted.
 */
const SECRET = "quickstart-secret-at-least-32-bytes-long!!";
const dir = mkdtempSync(join(tmpdir(), "mrt-quickstart-"));
let server: ServerProcess | undefined;
let client: Client | undefined;

afterAll(async () => {
  await client?.close();
  if (server) await killHard(server);
  rmSync(dir, { recursive: true, force: true });
});

const page = readFileSync(join(ROOT, "docs/quickstart-agent-memory.md"), "utf8");

test("the quickstart scopes a token, adds conversations and finds the current and the past", async () => {
  const done = await runDocShell({
    page,
    dir,
    secret: SECRET,
    label: "quickstart",
    append: 'echo "{\\"agent_token\\": \\"$AGENT_TOKEN\\"}"',
  });
  server = done.server;
  expect({ code: done.code, stderr: done.stderr }).toEqual({ code: 0, stderr: "" });
  // The supersedes id is printed right after the previous answer (curl -s ends without a newline).
  const printed = /\}([0-9a-f]{8})\n/.exec(done.stdout);
  expect(printed).not.toBeNull();
  const supersedes = printed![1];
  const answers = done.stdout.replace(printed![0], "}\n");
  const [role, added, now, then, token, ...rest] = jsonValues(answers);
  expect(rest).toEqual([]);
  expect(role).toMatchObject({ name: "assistant", builtin: false });
  expect(added.turns.map((t: { status: number }) => t.status)).toEqual([201, 201, 201]);
  expect(added.turns[0].entry).toMatchObject({ subject: "user-42", session_id: "trip-planning-1" });
  expect(added.extracted.map((x: { kind: string }) => x.kind)).toEqual([
    "personal",
    "preference",
    "decision",
  ]);
  const lisbon = added.extracted[0].entry;
  expect(supersedes).toBe(lisbon.id);
  expect(now.results[0].entry.content).toBe("user: I moved to Porto last week.");
  expect(then.results[0].entry.content).toBe(lisbon.content);

  // The MCP configuration, with the minted token in MEMORY_AGENT_TOKEN, as the client would expand it.
  const [json] = fencedBlocksOf(page, "json");
  // The `${…}` the client expands, written as text: "$" and the braces apart.
  const placeholder = ["$", "{MEMORY_AGENT_TOKEN}"].join("");
  const config = JSON.parse(json!.replaceAll(placeholder, token.agent_token));
  const memory = config.mcpServers.memory;
  client = new Client({ name: "quickstart", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(memory.url.replace(ADDRESS, server.base)), {
      requestInit: { headers: memory.headers },
    }),
  );
  const names = (await client.listTools()).tools.map((t) => t.name);
  expect(names).toContain("conversation_add");
  const found = (await client.callTool({
    name: "memory_search",
    arguments: { query: "window seats", tags: ["extracted"], limit: 1 },
  })) as CallToolResult;
  expect(JSON.stringify(found.structuredContent)).toContain("I prefer window seats.");
}, 60_000);
