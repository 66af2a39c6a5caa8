/**
 * docs/trust-and-provenance.md's example (docs/examples/trust.ts, included in the page verbatim)
 * runs as written, as a separate program, against a live server: it prints what the page says.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { carriesExample, liveHarness } from "../helpers/live-example.ts";
import { cleanEnv, ROOT, run } from "../helpers/spawn.ts";
import { acceptData, agentToken, postDataEvent } from "./verified-events.ts";

const EXAMPLE = "docs/examples/trust.ts";
const PAGE = "docs/trust-and-provenance.md";

const env = liveHarness();

test("the page carries the example verbatim", () => {
  expect(carriesExample(PAGE, EXAMPLE)).toBe(true);
});

test("the example prints what the page says", async () => {
  const t = await env.h.createTenant("Trust Example Co");
  acceptData(env.h, t.tenant_id);
  const agent = await agentToken(env.h, t.tenant_id);
  const verifiedId = (await postDataEvent(env.h, t.tenant_id, "The deploy key rotates every Monday")).id;
  const done = await run(
    ["bun", "run", EXAMPLE],
    cleanEnv({
      MEMORY_BASE_URL: env.live.base,
      MEMORY_AGENT_TOKEN: agent,
      MEMORY_OPERATOR_TOKEN: t.token,
      MEMORY_VERIFIED_ID: verifiedId,
    }),
    20_000,
  );
  expect({ code: done.code, stderr: done.stderr }).toEqual({ code: 0, stderr: "" });
  const page = readFileSync(join(ROOT, PAGE), "utf8");
  const printed = page.slice(page.indexOf("it prints")).match(/```json\n(.*)\n```/)![1]!;
  expect(JSON.parse(done.stdout)).toEqual(JSON.parse(printed));
  const denials = await env.h.json("GET", `/admin/audit/denials/${t.tenant_id}`, { token: env.h.adminToken });
  expect(denials.body.denials[0]).toMatchObject({ sub: "agent-7", permission: "memory:override:facts" });
  expect(env.live.nonConforming).toEqual([]);
});
