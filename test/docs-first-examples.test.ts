import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonValues } from "./helpers/markdown.ts";
import { httpCall, killHard, type ServerProcess } from "./helpers/server-process.ts";
import { cleanEnv, ROOT, run } from "./helpers/spawn.ts";
import {
  readme,
  startWalkthroughServer,
  WALKTHROUGH_ADDRESS,
  WALKTHROUGH_SECRETS_PATH,
  walkthroughScript,
} from "./helpers/walkthrough.ts";

/**
 * The first example of every docs page runs: after the README's walkthrough (and the README's
 * token-renewal commands) on one server, each page's first fenced block, when it is a shell block,
 * runs in bash with the walkthrough's `BASE`, `ADMIN`, `TENANT` and `TOKEN`, its `field` helper,
 * and a `curl` that fails on an HTTP error (so every call must answer 2xx). A page whose first block
 * is not a command against the server is listed below with the reason; a new page must be one or
 * the other.
 */
const NOT_RUNNABLE: Record<string, string> = {
  "api.md": "its first block is an entry's JSON, not a command",
  "architecture.md": "its first block is a diagram",
  "client.md": "it builds and packs the client with npm (test/client/packaging.test.ts does)",
  "cluster.md": "it starts nats-server and three nodes (test/cluster/ runs clusters)",
  "connectors.md": "a TypeScript program, docs/examples/embed-bridge.ts (test/readme-bridge-example.test.ts)",
  "eval.md": "the evaluation runs for minutes over downloaded sets",
  "mail-ingest.md": "it needs a Gmail account's OAuth credentials",
  "mcp.md": "it needs the Claude Code CLI (test/docs-quickstart.test.ts connects an MCP client)",
  "observability.md": "its first block is a Prometheus configuration",
  "static-embedder.md": "the distillation takes 15-20 minutes",
  "trust-and-provenance.md": "its first block is an entry's JSON, not a command",
  "webhooks.md": "its first block is a URL template",
};

/** Each run page's first answer, checked beyond its 2xx. */
// biome-ignore lint/suspicious/noExplicitAny: the printed answers are read field by field
const PRINTS: Record<string, (answers: any[], tokens: string[]) => void> = {
  "embedding-and-search.md": (answers) => {
    const search = answers.at(-1);
    expect(search.results.map((r: { entry: { content: string } }) => r.entry.content)).toEqual([
      "Move the billing database to Postgres",
      "Invoices are generated from the billing database nightly",
    ]);
  },
  "memory.md": ([created, read, list]) => {
    expect(created).toMatchObject({ category: "decision", status: "open" });
    expect(read.id).toBe(created.id);
    expect(list.items.map((e: { id: string }) => e.id)).toContain(created.id);
  },
  "operations.md": ([reload]) => expect(reload.secrets.reloaded).toBe(true),
  "webhook-operations.md": (answers) =>
    expect(answers).toEqual([
      { source: "payments", status: "paused", held: 0 },
      { source: "payments", status: "active", held: 0 },
    ]),
  "conversations.md": ([added, read]) => {
    expect(added.turns.map((t: { status: number }) => t.status)).toEqual([201, 201]);
    expect(added.extracted.map((x: { kind: string }) => x.kind)).toEqual(["personal"]);
    expect(read.turns.map((t: { position: number }) => t.position)).toEqual([0, 1]);
  },
  "context-pack.md": ([pack]) => {
    expect(pack).toMatchObject({ budget_tokens: 400, encoding: "o200k_base" });
    expect(pack.tokens).toBeLessThanOrEqual(400);
  },
  "dashboard-and-metrics.md": ([metrics]) =>
    expect(metrics).toMatchObject({ tenant_id: vars.TENANT, currency: "USD" }),
  "auth.md": ([minted], tokens) => {
    expect(minted).toMatchObject({ sub: "support-bot", roles: ["agent"], subject: "user-42" });
    expect(tokens).toHaveLength(1);
  },
};

const SECRET = "docs-first-examples-secret-at-least-32-bytes";
const dir = mkdtempSync(join(tmpdir(), "mrt-docs-first-"));
let secretsFile: string;
let server: ServerProcess;
let vars: { BASE: string; ADMIN: string; TENANT: string; TOKEN: string };

/** The README's renewal commands, as written in its "Tokens expire" line. */
function renewalCommands(): string[] {
  const line = /\*\*Tokens expire; get a new one\.\*\*[\s\S]*?(?=\n- |\n\n)/.exec(readme())?.[0] ?? "";
  return [...line.matchAll(/`((?:ADMIN|TOKEN)=\$\(bun run --silent mint-token[^`]*\))`/g)].map((m) => m[1]!);
}

const bash = (script: string, env: Record<string, string>) =>
  run(
    ["bash", "-c", `set -euo pipefail\n${script}`],
    cleanEnv({ MEMORY_RUNTIME_JWT_SECRET: SECRET, ...env }),
    30_000,
  );

beforeAll(async () => {
  ({ server, secretsFile } = await startWalkthroughServer({ dir, secret: SECRET, label: "docs-first" }));
}, 30_000);

afterAll(async () => {
  if (server) await killHard(server);
  rmSync(dir, { recursive: true, force: true });
});

test("the walkthrough, then the README's renewal commands, give working tokens", async () => {
  const renewal = renewalCommands();
  expect(renewal).toEqual([
    "ADMIN=$(bun run --silent mint-token --admin)",
    "TOKEN=$(bun run --silent mint-token --tenant $TENANT --sub tenant-admin)",
  ]);
  const script = walkthroughScript()
    .replaceAll(WALKTHROUGH_ADDRESS, server.base)
    .replaceAll(WALKTHROUGH_SECRETS_PATH, secretsFile);
  const print = 'echo "{\\"ADMIN\\":\\"$ADMIN\\",\\"TENANT\\":\\"$TENANT\\",\\"TOKEN\\":\\"$TOKEN\\"}"';
  const done = await bash(`${script}\n${print}\n${renewal.join("\n")}\n${print}`, {});
  expect({ code: done.code, stderr: done.stderr }).toEqual({ code: 0, stderr: "" });
  const printed = jsonValues(done.stdout);
  const [before, after] = printed.slice(-2);
  // New tokens, not the walkthrough's, and each one is let in.
  expect(after.TENANT).toBe(before.TENANT);
  expect(after.ADMIN).not.toBe(before.ADMIN);
  expect(after.TOKEN).not.toBe(before.TOKEN);
  const facts = await httpCall(server.base, "GET", "/memory/facts", { token: after.TOKEN });
  expect(facts.status).toBe(200);
  expect(facts.body.items.length).toBeGreaterThan(0);
  const tenants = await httpCall(server.base, "GET", "/admin/tenants", { token: after.ADMIN });
  expect(tenants.status).toBe(200);
  vars = { BASE: server.base, ...after };
}, 60_000);

const pages = readdirSync(join(ROOT, "docs"))
  .filter((f) => f.endsWith(".md"))
  .sort();

/** The first fenced block of a page, with its language (undefined when the page has none). */
function firstBlock(markdown: string): { lang: string; body: string } | undefined {
  const m = /^```([a-z]*)\n([\s\S]*?)^```$/m.exec(markdown);
  return m ? { lang: m[1]!, body: m[2]! } : undefined;
}

const JWT_LINE = /(?<=^|\})eyJ[\w-]+\.[\w-]+\.[\w-]+$/gm;

const PRELUDE = [
  'field() { bun -e "console.log(JSON.parse(await Bun.stdin.text())$1)"; }',
  'curl() { command curl --fail-with-body "$@"; }',
].join("\n");

test("every page with an example is run below or listed with the reason it is not", () => {
  const unclassified = pages.filter((p) => {
    const first = firstBlock(readFileSync(join(ROOT, "docs", p), "utf8"));
    if (!first) return false;
    const shell = first.lang === "sh" || first.lang === "bash";
    return !shell && !(p in NOT_RUNNABLE);
  });
  expect(unclassified).toEqual([]);
  // Every listed page exists and has an example (a page without one needs no reason).
  const listedWithout = Object.keys(NOT_RUNNABLE).filter(
    (p) => !pages.includes(p) || !firstBlock(readFileSync(join(ROOT, "docs", p), "utf8")),
  );
  expect(listedWithout).toEqual([]);
});

for (const page of pages) {
  const first = firstBlock(readFileSync(join(ROOT, "docs", page), "utf8"));
  if (!first || page in NOT_RUNNABLE) continue;
  test(`docs/${page}: the first example runs on the walkthrough's data`, async () => {
    expect(vars).toBeDefined();
    const script = first.body
      .replaceAll(WALKTHROUGH_ADDRESS, server.base)
      .replaceAll("localhost:8080", server.base);
    const done = await bash(`${PRELUDE}\n${script}`, vars);
    // On a failure the answer that failed is the last thing printed.
    const failed = done.code === 0 ? "" : done.stdout.slice(-400);
    // `bun run` without --silent echoes the command it runs ("$ …"): that is not an error.
    const stderr = done.stderr.replace(/^\$ .*\n/gm, "");
    expect({ code: done.code, stderr, failed }).toEqual({ code: 0, stderr: "", failed: "" });
    // A `mint-token` prints a bare token (after an answer curl ended without a newline); the rest is JSON.
    const tokens = done.stdout.match(JWT_LINE) ?? [];
    PRINTS[page]?.(jsonValues(done.stdout.replace(JWT_LINE, "")), tokens);
  }, 60_000);
}
