import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

/** A JSON route refuses a body of another media type with a 415 naming application/json (issue 36). */

let h: Harness;
let token: string;

beforeAll(async () => {
  h = await startHarness();
  ({ token } = await h.createTenant());
});
afterAll(() => h.close());

const FACT = JSON.stringify({ content: "Acme renews every March" });

describe("a body of a non-JSON media type on a JSON route", () => {
  const refused: Array<[string, string]> = [
    ["application/x-www-form-urlencoded", "content=Acme+renews+every+March"],
    [
      "multipart/form-data; boundary=b",
      '--b\r\nContent-Disposition: form-data; name="content"\r\n\r\nx\r\n--b--\r\n',
    ],
    ["text/plain;charset=UTF-8", FACT],
  ];
  for (const [type, raw] of refused) {
    test(`${type}: 415 naming application/json, nothing written`, async () => {
      const res = await h.call("POST", "/memory/facts", { token, raw, headers: { "content-type": type } });
      const problem = await expectProblem(res, 415, "unsupported_media_type");
      const bare = type.split(";")[0];
      expect(problem.detail).toBe(
        `this route reads application/json, not ${bare}: send the body as JSON with Content-Type: application/json`,
      );
      const list = await h.json("GET", "/memory/facts", { token });
      expect(list.body.items).toEqual([]);
    });
  }

  test("a malformed Content-Type is not echoed", async () => {
    const res = await h.call("POST", "/memory/facts", {
      token,
      raw: FACT,
      headers: { "content-type": "<b>x</b>" },
    });
    const problem = await expectProblem(res, 415, "unsupported_media_type");
    expect(problem.detail).toContain("not (malformed)");
  });

  test("the body is refused before its schema: a form is never a 422 or a 400", async () => {
    const res = await h.call("POST", "/memory/search", {
      token,
      raw: "query=x&categories=facts",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    await expectProblem(res, 415, "unsupported_media_type");
  });

  test("the tenant import still names NDJSON for a form", async () => {
    const { tenant_id } = await h.createTenant();
    const res = await h.call("POST", `/admin/tenants/${tenant_id}/import`, {
      token: h.adminToken,
      raw: "a=b",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    const problem = await expectProblem(res, 415, "unsupported_media_type");
    expect(problem.detail).toBe("send the export as application/x-ndjson");
  });
});

describe("what a JSON route still reads", () => {
  test("application/json, a +json type, and no Content-Type at all (curl without -H)", async () => {
    for (const headers of [
      { "content-type": "application/json; charset=utf-8" },
      { "content-type": "application/merge-patch+json" },
      {} as Record<string, string>,
    ]) {
      const raw = JSON.stringify({ content: `a fact sent with ${JSON.stringify(headers)}` });
      const res = await h.call("POST", "/memory/facts", { token, raw, headers });
      expect({ headers, status: res.status }).toEqual({ headers, status: 201 });
    }
  });

  test("a route without a body ignores an empty one, whatever its declared type", async () => {
    const res = await h.call("GET", "/memory/facts", {
      token,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(200);
  });

  test("malformed JSON declared as JSON is still a 400", async () => {
    const res = await h.call("POST", "/memory/facts", {
      token,
      raw: '{"content": ',
      headers: { "content-type": "application/json" },
    });
    await expectProblem(res, 400, "bad_request");
  });
});

describe("the OpenAPI document says it", () => {
  test("every operation behind the auth plugin declares the 415, as problem+json", async () => {
    const doc = (await h.json("GET", "/openapi/json")).body;
    for (const [path, method] of [
      ["/memory/facts", "post"],
      ["/memory/search", "post"],
      ["/admin/tenants", "post"],
      ["/mcp", "post"],
    ] as const) {
      const response = doc.paths[path][method].responses["415"];
      expect({ path, method, content: Object.keys(response?.content ?? {}) }).toEqual({
        path,
        method,
        content: ["application/problem+json"],
      });
    }
  });
});
