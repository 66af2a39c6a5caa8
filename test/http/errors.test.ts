import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { EmbeddingFailed } from "../../src/embedding/http-embedder.ts";
import {
  BadRequest,
  Conflict,
  RateLimited,
  SecretMissing,
  ValidationFailed,
} from "../../src/errors/domain-errors.ts";
import { errorsPlugin, logServerFault, problemResponse, toAppError } from "../../src/http/errors.ts";
import { PROBLEM_JSON } from "../../src/models/problem.ts";
import { readJson } from "../helpers/api.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe("X-Request-Id", () => {
  test("a sane caller id is echoed on success and on errors, and is the problem's request_id", async () => {
    const ok = await h.call("GET", "/healthz", { headers: { "x-request-id": "req-123_abc.DEF:9" } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-request-id")).toBe("req-123_abc.DEF:9");
    const err = await h.call("GET", "/tenants", { headers: { "x-request-id": "trace-42" } });
    const problem = await expectProblem(err, 401, "unauthorized");
    expect(problem.request_id).toBe("trace-42");
  });

  test("an absent id is generated, and differs per request", async () => {
    const a = (await h.call("GET", "/healthz")).headers.get("x-request-id");
    const b = (await h.call("GET", "/healthz")).headers.get("x-request-id");
    expect(a).toMatch(UUID);
    expect(b).toMatch(UUID);
    expect(a).not.toBe(b);
  });

  test("an insane id is replaced", async () => {
    for (const offered of ["has spaces", "x".repeat(129), "semi;colon", "<script>", "ünïcödé", "a/b", ""]) {
      const res = await h.call("GET", "/healthz", { headers: { "x-request-id": offered } });
      const id = res.headers.get("x-request-id");
      expect(id).not.toBe(offered);
      expect(id).toMatch(UUID);
    }
    const err = await h.call("GET", "/nope", { headers: { "x-request-id": "bad id" } });
    const problem = await expectProblem(err, 404, "not_found");
    expect(problem.request_id).toMatch(UUID);
  });

  test("an id of exactly 128 sane characters is kept", async () => {
    const id = "a".repeat(128);
    expect(
      (await h.call("GET", "/healthz", { headers: { "x-request-id": id } })).headers.get("x-request-id"),
    ).toBe(id);
  });
});

describe("problem documents from the app", () => {
  test("an unknown route is a 404 problem", async () => {
    await expectProblem(await h.call("GET", "/no/such/route"), 404, "not_found");
    await expectProblem(await h.call("GET", "/memory/nothings"), 404, "not_found");
  });

  test("a known path asked with another method is a 405 problem naming the methods it serves", async () => {
    // HEAD is served wherever GET is, so Allow names it (every route: method-not-allowed.test.ts).
    const cases: Array<[string, string, string]> = [
      ["DELETE", "/healthz", "GET, HEAD"],
      ["PUT", "/memory/facts", "GET, HEAD, POST"],
      ["PATCH", "/memory/facts/0123abcd", "DELETE, GET, HEAD"],
      ["GET", "/memory/search", "POST"],
      ["GET", "/memory/facts/batch", "POST"],
      ["GET", "/webhooks/data/01JDB2X6J3KQ5W8Z3M4N7P9R2S", "POST"],
      ["PUT", "/admin/roles/01JDB2X6J3KQ5W8Z3M4N7P9R2S", "GET, HEAD, POST"],
    ];
    for (const [method, path, allow] of cases) {
      const res = await h.call(method, path);
      expect({ method, path, allow: res.headers.get("allow") }).toEqual({ method, path, allow });
      const body = await expectProblem(res, 405, "method_not_allowed");
      expect(body.detail).toContain(method);
    }
  });

  test("malformed JSON is a 400 problem, declared as JSON or not declared at all", async () => {
    for (const ct of ["application/json", undefined]) {
      const headers: Record<string, string> = ct ? { "content-type": ct } : {};
      const res = await h.call("POST", "/admin/tenants", {
        token: h.adminToken,
        raw: '{"name": "x",',
        headers,
      });
      await expectProblem(res, 400, "bad_request");
    }
  });

  test("a body that is not UTF-8 is a 400 problem", async () => {
    const raw = new Uint8Array([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    const res = await h.call("POST", "/admin/tenants", {
      token: h.adminToken,
      raw,
      headers: { "content-type": "application/json" },
    });
    await expectProblem(res, 400, "bad_request");
  });
});

describe("errorsPlugin on its own app", () => {
  const lines: string[] = [];
  const app = new Elysia()
    .use(errorsPlugin((line) => lines.push(line)))
    .get("/boom", () => {
      throw new Error("database password is hunter2");
    })
    .get("/conflict", () => {
      throw new Conflict("taken");
    })
    .get("/limited", () => {
      throw new RateLimited("slow down", 2.2);
    })
    .post("/typed", ({ body }) => body, { body: t.Object({ n: t.Number() }) })
    .get("/q", ({ query }) => query, { query: t.Object({ n: t.Numeric() }) });

  test("an unexpected error is a 500 that reveals nothing; the log keeps the stack", async () => {
    const res = await app.handle(
      new Request("http://localhost/boom", { headers: { "x-request-id": "r-500" } }),
    );
    const problem = await expectProblem(res, 500, "internal_error");
    expect(JSON.stringify(problem)).not.toContain("hunter2");
    expect(lines.some((l) => l.includes("r-500") && l.includes("hunter2"))).toBe(true);
  });

  test("AppError subclasses keep their status, code and headers", async () => {
    await expectProblem(await app.handle(new Request("http://localhost/conflict")), 409, "conflict");
    const limited = await app.handle(new Request("http://localhost/limited"));
    expect(limited.headers.get("retry-after")).toBe("3");
    await expectProblem(limited, 429, "rate_limited");
  });

  test("schema validation failures are 422 with per-field errors", async () => {
    const res = await app.handle(
      new Request("http://localhost/typed", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ n: "x" }),
      }),
    );
    const problem = await expectProblem(res, 422, "validation_failed");
    expect(problem.errors).toContainEqual(expect.objectContaining({ path: "/n" }));
    const q = await app.handle(new Request("http://localhost/q?n=abc"));
    await expectProblem(q, 422, "validation_failed");
  });
});

describe("problemResponse / toAppError", () => {
  test("problemResponse writes every contract field", async () => {
    const res = problemResponse(new ValidationFailed("bad", [{ path: "/a", message: "m" }]), "rid");
    expect(res.status).toBe(422);
    expect(res.headers.get("content-type")).toBe(PROBLEM_JSON);
    expect(res.headers.get("x-request-id")).toBe("rid");
    expect(await readJson(res)).toEqual({
      type: "/problems/validation_failed",
      title: "Validation failed",
      status: 422,
      detail: "bad",
      code: "validation_failed",
      request_id: "rid",
      errors: [{ path: "/a", message: "m" }],
    });
  });

  test("an empty message falls back to the title; `errors` is left out when empty", async () => {
    const body = await readJson(problemResponse(new BadRequest(""), "r"));
    expect(body.detail).toBe("Bad request");
    expect("errors" in body).toBe(false);
  });

  test("SecretMissing names variables, and unknown errors map to internal_error", () => {
    const missing = toAppError(new SecretMissing(["CRM_SECRET_X"]));
    expect(missing.status).toBe(503);
    expect(missing.message).toContain("CRM_SECRET_X");
    const unknown = toAppError(new TypeError("x is undefined"));
    expect(unknown.status).toBe(500);
    expect(unknown.code).toBe("internal_error");
    expect(unknown.message).not.toContain("undefined");
  });

  test("an embeddings failure is a 503 to retry, its upstream's words only in the log", () => {
    const failed = new EmbeddingFailed("embeddings service http://10.0.0.7/v1 answered HTTP 500: quota");
    const mapped = toAppError(failed);
    expect({ status: mapped.status, code: mapped.code, retry: mapped.headers["retry-after"] }).toEqual({
      status: 503,
      code: "unavailable",
      retry: "5",
    });
    expect(mapped.message).not.toContain("10.0.0.7");
    const lines: string[] = [];
    logServerFault((line) => lines.push(line), "rid-1", mapped, failed);
    expect(lines).toEqual([`[rid-1] ${failed.message}`]);
  });
});
