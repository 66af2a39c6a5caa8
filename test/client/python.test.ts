/**
 * The generated Python client (clients/python/typed_memory) against a live server: a Python 3
 * program (test/client/python/program.py, the standard library and the client only) writes a fact,
 * reads it back, finds it by search and by list, and gets a 404 and a 422 raised as NotFoundError
 * and ValidationError carrying the problem document's fields.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { cleanEnv, ROOT, run } from "../helpers/spawn.ts";
import { type LiveServer, serveHarness } from "./live-server.ts";

let h: Harness;
let live: LiveServer;

beforeAll(async () => {
  h = await startHarness();
  live = serveHarness(h);
});

afterAll(async () => {
  await live.stop();
  await h.close();
});

test("a Python program writes, reads, searches, and gets 404/422 as typed exceptions", async () => {
  const { token } = await h.createTenant("Python client");
  const result = await run(
    ["python3", "-B", "test/client/python/program.py"],
    cleanEnv({
      BASE_URL: live.base,
      TOKEN: token,
      CONTENT: "Initech renews its paper contract in May",
      PYTHONPATH: join(ROOT, "clients", "python"),
    }),
    30_000,
  );
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(JSON.parse(result.stdout.trim())).toEqual({
    category: "fact",
    read_back: true,
    found: true,
    listed: true,
    missing: { class: "NotFoundError", status: 404, code: "not_found" },
    invalid: {
      class: "ValidationError",
      status: 422,
      is_problem: true,
      paths: ["/content"],
      type: "/problems/validation_failed",
    },
  });
  // Every answer the program got is one the OpenAPI document allows.
  expect(live.nonConforming).toEqual([]);
});
