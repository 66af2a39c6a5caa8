/**
 * The client's examples in docs/client.md (docs/examples/client.ts and client-admin.ts, included in
 * the page verbatim) run as written, as separate programs, against a live server; and they pass
 * `tsc` on their own (docs/examples/tsconfig.json) with a bounded amount of type work: what a
 * program of a user's costs to typecheck against the client.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { carriesExample, liveHarness } from "../helpers/live-example.ts";
import { cleanEnv, ROOT, run } from "../helpers/spawn.ts";

const env = liveHarness();

const EXAMPLES = ["docs/examples/client.ts", "docs/examples/client-admin.ts"];

test("docs/client.md carries both examples verbatim", () => {
  for (const example of EXAMPLES) {
    expect({ example, included: carriesExample("docs/client.md", example) }).toEqual({
      example,
      included: true,
    });
  }
});

test("the tenant example writes, reads back, searches and lists through the client", async () => {
  const { tenant_id, token } = await env.h.createTenant("Example Co");
  const done = await run(
    ["bun", "run", EXAMPLES[0]!],
    cleanEnv({ MEMORY_BASE_URL: env.live.base, MEMORY_TOKEN: token }),
    20_000,
  );
  expect({ code: done.code, stderr: done.stderr }).toEqual({ code: 0, stderr: "" });
  const out = JSON.parse(done.stdout);
  expect(out.fact).toEqual({ id: expect.stringMatching(/^[0-9a-f]{8}$/), category: "fact", status: 201 });
  expect(out.decision.data).toEqual({ why: "renews every year" });
  expect(out.missing).toEqual({ status: 404, code: "not_found" });
  expect(out.found.map((r: { id: string }) => r.id).sort()).toEqual([out.fact.id, out.decision.id].sort());
  expect(out.listed).toEqual([out.fact.id]);

  // What the example wrote is in the tenant's memory.
  const read = await env.h.json("GET", `/memory/facts/${out.fact.id}`, { token });
  expect(read.body).toMatchObject({ tenant_id, content: "Acme renews its contract in March" });
  expect(env.live.nonConforming).toEqual([]);
});

test("the operator example creates a tenant, mints an agent token and lists dead letters", async () => {
  const done = await run(
    ["bun", "run", EXAMPLES[1]!],
    cleanEnv({ MEMORY_BASE_URL: env.live.base, MEMORY_ADMIN_TOKEN: env.h.adminToken }),
    20_000,
  );
  expect({ code: done.code, stderr: done.stderr }).toEqual({ code: 0, stderr: "" });
  const out = JSON.parse(done.stdout);
  expect(out).toEqual({
    tenant_id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
    agent: "agent-7",
    dead_letters: 0,
    replays: [],
  });
  const listed = await env.h.json("GET", "/admin/tenants?limit=1000", { token: env.h.adminToken });
  expect(listed.body.tenants.map((t: { tenant_id: string }) => t.tenant_id)).toContain(out.tenant_id);
  expect(env.live.nonConforming).toEqual([]);
});

test("the examples pass tsc alone, with bounded type work", async () => {
  const done = await run(
    [
      join(ROOT, "node_modules/.bin/tsc"),
      "--noEmit",
      "-p",
      "docs/examples/tsconfig.json",
      "--extendedDiagnostics",
    ],
    cleanEnv({}),
    120_000,
  );
  const errors = done.stdout.split("\n").filter((line) => line.includes("error TS"));
  expect({ code: done.code, errors }).toEqual({ code: 0, errors: [] });
  // Instantiations count the checker's generic work: deterministic, unlike a time on a shared
  // machine. The raw output of openapi-typescript without named types cost far more.
  const instantiations = Number(/Instantiations:\s+(\d+)/.exec(done.stdout)?.[1]);
  expect(instantiations).toBeGreaterThan(0);
  expect(instantiations).toBeLessThan(20_000);
});
