import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { allowedValuesOf, faultMessage } from "../../src/http/allowed-values.ts";
import { errorsPlugin } from "../../src/http/errors.ts";
import { CATEGORIES, PLURAL_OF } from "../../src/models/category.ts";
import { LiteralUnion } from "../../src/models/common.ts";
import { SUBSCRIBABLE_EVENTS } from "../../src/models/subscription.ts";
import { BASE, type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

/** Errors that name what is allowed (issue 36): closed sets, category paths, media types. */

let h: Harness;
let token: string;
let tenantId: string;

beforeAll(async () => {
  h = await startHarness();
  ({ token, tenant_id: tenantId } = await h.createTenant());
});
afterAll(() => h.close());

const SIX = CATEGORIES.join(", ");

describe("a value outside a closed set lists the allowed values", () => {
  test("search categories: the six, and what was sent", async () => {
    const res = await h.call("POST", "/memory/search", {
      token,
      body: { query: "x", categories: ["facts"] },
    });
    const problem = await expectProblem(res, 422, "validation_failed");
    const message = `must be one of ${SIX} (got "facts")`;
    expect(problem.detail).toBe(`body /categories/0: ${message}`);
    expect(problem.errors).toEqual([{ path: "/categories/0", message }]);
  });

  test("a body's field of a union of literals: an outcome's result", async () => {
    const res = await h.call("POST", "/memory/outcomes", {
      token,
      body: { content: "x", decision_id: "abcdef12", result: "win" },
    });
    const problem = await expectProblem(res, 422, "validation_failed");
    expect(problem.detail).toBe('body /result: must be one of success, failure, neutral (got "win")');
  });

  test("an outbound subscription's event types", async () => {
    const res = await h.call("POST", `/admin/subscriptions/${tenantId}`, {
      token: h.adminToken,
      body: { url: "https://example.com/hook", events: ["entry.creatd"] },
    });
    const problem = await expectProblem(res, 422, "validation_failed");
    expect(problem.errors?.[0]).toEqual({
      path: "/events/0",
      message: `must be one of ${SUBSCRIBABLE_EVENTS.join(", ")} (got "entry.creatd")`,
    });
  });

  test("a query parameter: a list's status", async () => {
    const res = await h.call("GET", "/memory/decisions?status=closed", { token });
    const problem = await expectProblem(res, 422, "validation_failed");
    expect(problem.detail).toBe('query /status: must be one of open, resolved (got "closed")');
  });

  test("a value that is not plain is named by its kind, never echoed", async () => {
    const res = await h.call("POST", "/memory/search", {
      token,
      body: { query: "x", categories: ["<script>alert(1)</script>"] },
    });
    const problem = await expectProblem(res, 422, "validation_failed");
    expect(problem.detail).toBe(`body /categories/0: must be one of ${SIX} (got a string)`);
    expect(JSON.stringify(problem)).not.toContain("<script>");
  });

  test("a path parameter: the errors plugin reads the set from the params schema", async () => {
    const app = new Elysia()
      .use(errorsPlugin(() => undefined))
      .get("/kinds/:kind", ({ params }) => params.kind, {
        params: Type.Object({ kind: LiteralUnion(["alpha", "beta"]) }),
      });
    const res = await app.handle(new Request(`${BASE}/kinds/gamma`));
    const problem = await expectProblem(res, 422, "validation_failed");
    expect(problem.detail).toBe('params /kind: must be one of alpha, beta (got "gamma")');
  });

  test("MCP: a tool's category lists the six", async () => {
    const res = await h.call("POST", "/mcp", {
      token,
      headers: { accept: "application/json, text/event-stream" },
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "memory_add", arguments: { category: "facts", content: "x" } },
      },
    });
    expect(res.status).toBe(200);
    const reply = (await res.json()) as { result: { isError: boolean; content: Array<{ text: string }> } };
    expect(reply.result.isError).toBe(true);
    const problem = JSON.parse(reply.result.content[0]!.text);
    expect(problem.status).toBe(422);
    expect(problem.detail).toBe(`body /category: must be one of ${SIX} (got "facts")`);
  });

  test("MCP: a search's categories too", async () => {
    const res = await h.call("POST", "/mcp", {
      token,
      headers: { accept: "application/json, text/event-stream" },
      body: {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "memory_search", arguments: { query: "x", categories: ["notes"] } },
      },
    });
    const reply = (await res.json()) as { result: { isError: boolean; content: Array<{ text: string }> } };
    expect(reply.result.isError).toBe(true);
    expect(JSON.parse(reply.result.content[0]!.text).detail).toBe(
      `body /categories/0: must be one of ${SIX} (got "notes")`,
    );
  });
});

describe("allowedValuesOf reads the set from the schema", () => {
  test("a union of literals, nested, with null; an enum; a const; open schemas have none", () => {
    expect(allowedValuesOf(LiteralUnion(CATEGORIES))).toEqual([...CATEGORIES]);
    const nested = Type.Union([Type.Union([Type.Literal("a"), Type.Literal(1)]), Type.Null()]);
    expect(allowedValuesOf(nested)).toEqual(["a", 1, null]);
    expect(allowedValuesOf(Type.Unsafe({ type: "string", enum: ["x", "y"] }))).toEqual(["x", "y"]);
    expect(allowedValuesOf(Type.Literal(true))).toEqual([true]);
    expect(allowedValuesOf(Type.String())).toBeUndefined();
    expect(allowedValuesOf(Type.Union([Type.Literal("a"), Type.String()]))).toBeUndefined();
  });

  test("the message: one value, a missing value, an open schema keeps its own words", () => {
    expect(faultMessage(Type.Literal("2.0"), "1.0", "Expected '2.0'")).toBe('must be 2.0 (got "1.0")');
    expect(faultMessage(LiteralUnion(["a", "b"]), undefined, "Expected required property")).toBe(
      "is required: one of a, b",
    );
    expect(faultMessage(Type.String(), 5, "Expected string")).toBe("Expected string");
  });
});

describe("an unknown /memory/<x> lists the six category paths", () => {
  const paths = CATEGORIES.map((c) => `/memory/${PLURAL_OF[c]}`).join(", ");

  test("a singular gets the plural suggested", async () => {
    const res = await h.call("POST", "/memory/fact", { token, body: { content: "x" } });
    const problem = await expectProblem(res, 404, "not_found");
    expect(problem.detail).toBe(
      `no memory category "fact" (did you mean /memory/facts?): the category paths are ${paths}`,
    );
  });

  test("an entry's path keeps its id in the suggestion", async () => {
    const res = await h.call("GET", "/memory/decision/abcdef12", { token });
    const problem = await expectProblem(res, 404, "not_found");
    expect(problem.detail).toContain("did you mean /memory/decisions/abcdef12?");
  });

  test("another name gets the list alone", async () => {
    const res = await h.call("POST", "/memory/notes", { token, body: { content: "x" } });
    const problem = await expectProblem(res, 404, "not_found");
    expect(problem.detail).toBe(`no memory category "notes": the category paths are ${paths}`);
  });

  test("a miss below a real category path stays a plain route miss", async () => {
    const res = await h.call("GET", "/memory/facts/abcdef12/nothing", { token });
    const problem = await expectProblem(res, 404, "not_found");
    expect(problem.detail).toBe("no such route");
  });
});
