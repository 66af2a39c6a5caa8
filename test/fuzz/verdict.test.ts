/** The fuzz's answer checks (verdict.ts) catch what they name, and pass ordinary answers. */
import { describe, expect, test } from "bun:test";
import { inspect } from "./verdict.ts";

const PLANTED = ["fuzz-jwt-0123456789abcdef", "/tmp/mrt-fuzz-abc"];
const problem = JSON.stringify({
  type: "/problems/not_found",
  title: "Not found",
  status: 404,
  detail: "no fact 0badc0de in this tenant",
  code: "not_found",
  request_id: "4a331933-d5a7-4772-acc4-b59f9b7b4220",
});
const kinds = (status: number, body: string, headers = "content-type: application/problem+json") =>
  inspect({ status, headers, body }, PLANTED).map((f) => f.kind);

describe("inspect", () => {
  test("an ordinary problem document and an ordinary page pass", () => {
    expect(kinds(404, problem)).toEqual([]);
    expect(
      kinds(200, "<html><body><h1>Typed-memory runtime</h1><p>at 10:30 the sync ran</p></body></html>"),
    ).toEqual([]);
  });

  test("a 5xx is a finding", () => {
    expect(kinds(500, "Internal Server Error")).toEqual(["5xx"]);
    expect(kinds(503, problem)).toEqual(["5xx"]);
  });

  test("stack frames and source locations are findings, in the body or a header", () => {
    const v8 = "TypeError: x is undefined\n    at handler (/work/main/src/routes/memory.ts:41:12)";
    expect(kinds(400, v8)).toContain("stack-trace");
    expect(kinds(400, "failed at /app/node_modules/elysia/dist/index.js:3:1")).toContain("stack-trace");
    expect(kinds(400, "{}", "x-debug: handler@/srv/app/src/index.ts:7:3")).toContain("stack-trace");
    expect(
      kinds(400, '{"detail":"Error: ENOENT: no such file or directory, open \'/var/data/x\'"}'),
    ).toContain("stack-trace");
  });

  test("a planted secret or server path is a finding wherever it appears", () => {
    expect(kinds(401, `{"detail":"bad token fuzz-jwt-0123456789abcdef"}`)).toEqual(["secret"]);
    expect(kinds(200, "{}", "x-path: /tmp/mrt-fuzz-abc/data")).toEqual(["secret"]);
  });
});
