/**
 * docs/mcp.md's host configurations (Claude Code, Cursor, VS Code, Claude Desktop through
 * mcp-remote): every JSON block parses, names one `typed-memory` server reaching `/mcp` with a
 * bearer `Authorization` header, and that endpoint and header, with a real token in place of the
 * host's variable, answer tools/list.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { fencedBlocksOf } from "../helpers/markdown.ts";
import { ROOT } from "../helpers/spawn.ts";

interface Endpoint {
  url: string;
  authorization: string;
}

const configs = fencedBlocksOf(readFileSync(join(ROOT, "docs", "mcp.md"), "utf8"), "json").map(
  (text) => JSON.parse(text) as Record<string, Record<string, Record<string, unknown>>>,
);

/** Where a host's entry sends requests and the header it sends, for both kinds of entry. */
function endpointOf(entry: Record<string, unknown>): Endpoint {
  if (typeof entry.url === "string") {
    const headers = entry.headers as Record<string, string>;
    return { url: entry.url, authorization: headers.Authorization! };
  }
  // The stdio bridge: `npx -y mcp-remote <url> --header Authorization:${AUTH_HEADER}`, env-filled.
  const args = entry.args as string[];
  expect(entry.command).toBe("npx");
  expect(args.slice(0, 2)).toEqual(["-y", "mcp-remote"]);
  const header = args[args.indexOf("--header") + 1]!;
  const env = entry.env as Record<string, string>;
  const value = header.replace(/^Authorization:/, "").replace(/\$\{(\w+)\}/g, (_, name) => env[name]!);
  return { url: args[2]!, authorization: value };
}

let h: Harness;
let token: string;

beforeAll(async () => {
  h = await startHarness();
  ({ token } = await h.createTenant("MCP hosts"));
});

afterAll(() => h.close());

test("docs/mcp.md shows a configuration for each common host", () => {
  // Claude Code's .mcp.json, Cursor, VS Code (servers + inputs), Claude Desktop (the bridge).
  expect(configs).toHaveLength(4);
  expect(configs.filter((c) => c.mcpServers).length).toBe(3);
  expect(Object.keys(configs.find((c) => c.servers)!.servers!)).toEqual(["typed-memory"]);
});

test("every configuration reaches /mcp with a bearer token, which answers tools/list", async () => {
  for (const config of configs) {
    const servers = config.mcpServers ?? config.servers!;
    expect(Object.keys(servers)).toEqual(["typed-memory"]);
    const { url, authorization } = endpointOf(servers["typed-memory"]!);
    expect(new URL(url).pathname).toBe("/mcp");
    expect(authorization).toMatch(/^Bearer \S+$/);
    const res = await h.app.handle(
      new Request(`http://localhost${new URL(url).pathname}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: { tools: { name: string }[] } };
    expect(body.result.tools.map((t) => t.name)).toContain("memory_add");
  }
});
