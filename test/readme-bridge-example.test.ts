import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha8 } from "../actors/tenant/memory/entry-id.ts";
import { identityText } from "../actors/tenant/memory/entry-identity.ts";
import { type Harness, startHarness, TEST_SECRET } from "./helpers/harness.ts";
import { cleanEnv, ROOT, run } from "./helpers/spawn.ts";

/**
 * The embedding example of docs/connectors.md (docs/examples/embed-bridge.ts, included in the page
 * verbatim) runs as written: a message and a ✅ reaction through `bridge.deliver`, then the entries they
 * wrote are read back from the data directory the example left.
 */
const EXAMPLE = "docs/examples/embed-bridge.ts";
const dataDir = mkdtempSync(join(tmpdir(), "mrt-readme-bridge-"));
let h: Harness | undefined;

afterAll(async () => {
  await h?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test("docs/connectors.md carries the bridge example verbatim", () => {
  const example = readFileSync(join(ROOT, EXAMPLE), "utf8");
  const page = readFileSync(join(ROOT, "docs/connectors.md"), "utf8");
  expect(page).toContain(`\`\`\`ts\n${example}\`\`\``);
});

test("the bridge example writes the message as a fact and the ✅ as a decision promoting it", async () => {
  const done = await run(
    ["bun", "run", EXAMPLE],
    cleanEnv({ MEMORY_RUNTIME_JWT_SECRET: TEST_SECRET, MEMORY_RUNTIME_DATA_DIR: dataDir }),
    20_000,
  );
  expect({ code: done.code, stderr: done.stderr }).toEqual({ code: 0, stderr: "" });
  const out = JSON.parse(done.stdout);
  const empty = { duplicates: 0, dead_lettered: [], ignored: 0, held: 0 };
  expect(out.message).toEqual({ entries: [expect.stringMatching(/^[0-9a-f]{8}$/)], ...empty });
  expect(out.reaction).toEqual({ entries: [expect.stringMatching(/^[0-9a-f]{8}$/)], ...empty });
  const [factId] = out.message.entries;
  const [decisionId] = out.reaction.entries;

  h = await startHarness({ dataDir });
  const token = await h.mint(out.tenant_id, ["tenant_admin"]);
  const fact = await h.json("GET", `/memory/facts/${factId}`, { token });
  expect(fact.status).toBe(200);
  expect(fact.body).toMatchObject({
    content: "We ship on Friday",
    valid_from: "2025-11-21T10:13:20.000Z",
    source: { system: "messaging", event_id: "C024BE91L:1763720000.000100:message", event_type: "message" },
  });
  const decision = await h.json("GET", `/memory/decisions/${decisionId}`, { token });
  expect(decision.status).toBe(200);
  expect(decision.body).toMatchObject({
    content: "We ship on Friday",
    data: { message_id: factId, promoted_by: "U061F7AUR" },
    source: { system: "messaging", event_type: "reaction_added" },
  });
  // Each id is the content address of the entry written, and nothing else was written.
  expect(sha8(identityText(fact.body))).toBe(factId);
  expect(sha8(identityText(decision.body))).toBe(decisionId);
  const facts = await h.json("GET", "/memory/facts", { token });
  const decisions = await h.json("GET", "/memory/decisions", { token });
  expect([
    facts.body.items.map((e: { id: string }) => e.id),
    decisions.body.items.map((e: { id: string }) => e.id),
  ]).toEqual([[factId], [decisionId]]);
}, 30_000);
