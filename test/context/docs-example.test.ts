/**
 * docs/context-pack.md's example (docs/examples/context-pack.ts, included in the page verbatim)
 * runs as written, as a separate program with the typed client, against a live server: it prints
 * what the page says.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { carriesExample, liveHarness } from "../helpers/live-example.ts";
import { cleanEnv, ROOT, run } from "../helpers/spawn.ts";

const EXAMPLE = "docs/examples/context-pack.ts";
const PAGE = "docs/context-pack.md";

const env = liveHarness();

test("the page carries the example verbatim", () => {
  expect(carriesExample(PAGE, EXAMPLE)).toBe(true);
});

test("the example prints what the page says", async () => {
  const t = await env.h.createTenant("Context Example Co");
  const done = await run(
    ["bun", "run", EXAMPLE],
    cleanEnv({ MEMORY_BASE_URL: env.live.base, MEMORY_TOKEN: t.token }),
    20_000,
  );
  expect({ code: done.code, stderr: done.stderr }).toEqual({ code: 0, stderr: "" });
  const page = readFileSync(join(ROOT, PAGE), "utf8");
  const printed = page.slice(page.indexOf("it prints")).match(/```json\n(.*)\n```/)![1]!;
  expect(JSON.parse(done.stdout)).toEqual(JSON.parse(printed));
  expect(env.live.nonConforming).toEqual([]);
});
