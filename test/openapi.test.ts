/**
 * The OpenAPI document at GET /openapi/json: a valid OpenAPI 3.1 document, generated from the routes'
 * own schemas, that cannot drift from them (every route, parameter, body and status is in it, each
 * body under the media type it is sent as), and the conformance check the black-box suites run on
 * every response (test/helpers/openapi-conformance.ts) is itself tested here.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import type { TSchema } from "@sinclair/typebox";
import { Kind } from "@sinclair/typebox";
import { MEDIA_TYPE_KEY } from "../src/models/media-type.ts";
import { PROBLEM_JSON } from "../src/models/problem.ts";
import { type Harness, startHarness } from "./helpers/harness.ts";
import { type ConformanceChecker, checkerFromDocument } from "./helpers/openapi-conformance.ts";

// biome-ignore lint/suspicious/noExplicitAny: the document is read field by field
type Json = Record<string, any>;

/** Routes anyone may call (CONTRACT §8, SPEC §5): they declare `security: []`. */
const PUBLIC = [
  "GET /healthz",
  "GET /openapi",
  "GET /openapi/assets/{file}",
  "GET /openapi/json",
  "POST /webhooks/{source}/{tenant_id}",
];
const PROBLEM_FIELDS = ["type", "title", "status", "detail", "code", "request_id"];

let h: Harness;
let doc: Json;

beforeAll(async () => {
  h = await startHarness();
  const res = await h.call("GET", "/openapi/json");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toStartWith("application/json");
  doc = (await res.json()) as Json;
});

afterAll(async () => {
  await h.close();
});

/** `/memory/facts/:sha8` → `/memory/facts/{sha8}`. */
function templateOf(path: string): string {
  return path.replace(/:([^/]+)/g, "{$1}");
}

function operation(method: string, path: string): Json | undefined {
  return doc.paths?.[templateOf(path)]?.[method.toLowerCase()];
}

/** A schema of the document, its `$ref` to `components.schemas` followed. */
function resolve(schema: Json): Json {
  const ref = schema?.$ref;
  if (typeof ref !== "string") return schema;
  const name = ref.replace("#/components/schemas/", "");
  const target = doc.components?.schemas?.[name];
  if (!target) throw new Error(`unresolved $ref ${ref}`);
  return resolve(target);
}

/** Every operation of the document, as `METHOD /template` and the operation object. */
function operations(): Array<[string, Json]> {
  const out: Array<[string, Json]> = [];
  for (const [template, item] of Object.entries<Json>(doc.paths))
    for (const [method, op] of Object.entries<Json>(item))
      out.push([`${method.toUpperCase()} ${template}`, op]);
  return out;
}

/** The app's routes, but those a test added to the app it runs (none here). */
function routes() {
  return h.app.routes.map((r) => ({ method: r.method, path: r.path, hooks: r.hooks as Json }));
}

/** The status → schema map a route declares (a single schema is its 200). */
function declaredResponses(hooks: Json): Record<string, TSchema> {
  const response = hooks.response;
  if (!response) return {};
  if (Kind in response || response.type || response.anyOf) return { 200: response };
  return response;
}

/** The media types a declared response schema is sent as, as the document must list them. */
function mediaTypesOf(schema: Json): string[] {
  if (schema[MEDIA_TYPE_KEY]) return [schema[MEDIA_TYPE_KEY]];
  if (Array.isArray(schema.anyOf) && schema.anyOf.some((m: Json) => m[MEDIA_TYPE_KEY]))
    return [
      ...new Set<string>(schema.anyOf.map((m: Json) => m[MEDIA_TYPE_KEY] ?? "application/json")),
    ].sort();
  const kind = (schema as { [Kind]?: string })[Kind];
  if (schema.type === "null" || kind === "Void" || kind === "Undefined") return [];
  if (["string", "number", "integer", "boolean"].includes(schema.type)) return ["text/plain"];
  return ["application/json"];
}

describe("the OpenAPI document", () => {
  test("is a valid OpenAPI 3.1 document", async () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    const result = await new Validator().validate(structuredClone(doc));
    expect({ valid: result.valid, errors: result.errors }).toEqual({ valid: true, errors: undefined });
  });

  test("every route of the app is in it, with its path parameters", () => {
    const all = routes();
    expect(all.length).toBeGreaterThan(30);
    const missing: string[] = [];
    for (const route of all) {
      const op = operation(route.method, route.path);
      if (!op) {
        missing.push(`${route.method} ${templateOf(route.path)}`);
        continue;
      }
      const names = [...route.path.matchAll(/:([^/]+)/g)].map((m) => m[1]);
      const inPath = (op.parameters ?? []).filter((p: Json) => p.in === "path");
      expect({ route: route.path, params: inPath.map((p: Json) => p.name).sort() }).toEqual({
        route: route.path,
        params: [...names].sort(),
      });
      for (const p of inPath) expect(p.required).toBe(true);
    }
    expect(missing).toEqual([]);
    // And nothing else: every operation of the document is a route.
    const served = new Set(all.map((r) => `${r.method} ${templateOf(r.path)}`));
    expect(
      operations()
        .filter(([key]) => !served.has(key))
        .map(([key]) => key),
    ).toEqual([]);
  });

  test("every status a route declares has a response, under the media types it is sent as", () => {
    for (const route of routes()) {
      const op = operation(route.method, route.path)!;
      for (const [status, schema] of Object.entries(declaredResponses(route.hooks))) {
        const response = op.responses?.[status];
        const where = `${route.method} ${route.path} ${status}`;
        expect({ where, documented: response !== undefined }).toEqual({ where, documented: true });
        expect({ where, content: Object.keys(response.content ?? {}).sort() }).toEqual({
          where,
          content: mediaTypesOf(schema as Json),
        });
        expect(typeof response.description).toBe("string");
      }
    }
  });

  test("JSON successes are application/json; errors are problem documents under application/problem+json", () => {
    let problemsSeen = 0;
    for (const [key, op] of operations()) {
      for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
        for (const [type, media] of Object.entries<Json>(response.content ?? {})) {
          const where = `${key} ${status} ${type}`;
          const json = type === "application/json" || type.endsWith("+json");
          if (Number(status) >= 400 && json) {
            expect({ where, type }).toEqual({ where, type: PROBLEM_JSON });
            expect({ where, required: resolve(media.schema).required }).toEqual({
              where,
              required: expect.arrayContaining(PROBLEM_FIELDS),
            });
            problemsSeen++;
          }
          if (Number(status) < 400 && json)
            expect({ where, type }).toEqual({ where, type: "application/json" });
          // No generator marks are left in the document.
          expect(JSON.stringify(media.schema ?? {})).not.toContain(MEDIA_TYPE_KEY);
        }
      }
    }
    expect(problemsSeen).toBeGreaterThan(100);
    // Every guarded route documents its 401.
    for (const [key, op] of operations())
      if (!PUBLIC.includes(key) && op.security === undefined)
        expect({ key, has401: "401" in (op.responses ?? {}) }).toEqual({ key, has401: true });
  });

  test("a route with a body documents its schema; the webhook route its source-native payloads", () => {
    let bodies = 0;
    for (const route of routes()) {
      const body = route.hooks.body as Json | undefined;
      if (!body) continue;
      bodies++;
      const where = `${route.method} ${route.path}`;
      const content = operation(route.method, route.path)?.requestBody?.content ?? {};
      // A body read by a parser function is invisible to the generator unless the route also names
      // its media type (e.g. `parse: [reader, "json"]`, as the auth plugin does).
      expect({ where, types: Object.keys(content).length > 0 }).toEqual({ where, types: true });
      for (const media of Object.values<Json>(content)) {
        const schema = resolve(media.schema);
        expect({ where, properties: Object.keys(schema?.properties ?? {}).sort() }).toEqual({
          where,
          properties: Object.keys(body.properties ?? {}).sort(),
        });
        expect(schema.additionalProperties).toEqual(body.additionalProperties);
      }
    }
    expect(bodies).toBeGreaterThan(10);
    expect(Object.keys(doc.paths["/memory/facts"].post.requestBody.content)).toEqual(["application/json"]);
    expect(Object.keys(doc.paths["/webhooks/{source}/{tenant_id}"].post.requestBody.content).sort()).toEqual([
      "application/json",
      "application/x-www-form-urlencoded",
      "text/xml",
    ]);
  });

  test("the webhook route's answers: the summary, the platform's JSON, the CRM's SOAP ack and a plain-text echo", () => {
    const ok = doc.paths["/webhooks/{source}/{tenant_id}"].post.responses["200"].content;
    expect(Object.keys(ok).sort()).toEqual(["application/json", "text/plain", "text/xml"]);
    expect(ok["application/json"].schema.anyOf).toHaveLength(2);
    expect(ok["text/xml"].schema.type).toBe("string");
  });

  test("the webhook route declares cluster mode's 202: the event ids durably queued", async () => {
    const queued = doc.paths["/webhooks/{source}/{tenant_id}"].post.responses["202"].content;
    expect(Object.keys(queued)).toEqual(["application/json"]);
    const checker = checkerFromDocument(doc);
    const path = "/webhooks/standard/01JDB2X6J3KQ5W8Z3M4N7P9R2S";
    const answer = (body: unknown) =>
      new Response(JSON.stringify(body), { status: 202, headers: { "content-type": "application/json" } });
    expect(await checker.problems("POST", path, answer({ queued: ["evt-1"] }))).toEqual([]);
    expect(await checker.problems("POST", path, answer({ queued: "evt-1" }))).not.toEqual([]);
  });

  test("a bearer JWT scheme applies globally; the public routes declare security: []", () => {
    expect(doc.components.securitySchemes.bearer).toEqual({
      type: "http",
      scheme: "bearer",
      bearerFormat: "JWT",
    });
    expect(doc.security).toEqual([{ bearer: [] }]);
    const byKey = new Map(operations());
    for (const key of PUBLIC)
      expect({ key, security: byKey.get(key)?.security }).toEqual({ key, security: [] });
    // An operation that overrides the global requirement names only schemes the document defines.
    for (const [key, op] of operations())
      for (const requirement of op.security ?? [])
        for (const scheme of Object.keys(requirement))
          expect({ key, scheme, defined: scheme in doc.components.securitySchemes }).toEqual({
            key,
            scheme,
            defined: true,
          });
  });

  test("what the document says needs a token does: an anonymous request to it is a 401", async () => {
    for (const [key, op] of operations()) {
      if (op.security !== undefined) continue;
      const [method, template] = key.split(" ") as [string, string];
      const path = template.replace(/\{[^}]+\}/g, "01JDB2X6J3KQ5W8Z3M4N7P9R2S");
      const res = await h.call(method, path, method === "GET" ? {} : { body: {} });
      expect({ key, status: res.status }).toEqual({ key, status: 401 });
    }
  });

  test("the document is generated once and served as it is after that", async () => {
    const again = await (await h.call("GET", "/openapi/json")).json();
    expect(again).toEqual(doc);
  });
});

describe("the conformance check", () => {
  let checker: ConformanceChecker;
  beforeAll(() => {
    checker = checkerFromDocument(doc);
  });

  const json = (body: unknown, status = 200, type = "application/json") =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": type } });
  const problem = (status: number) => ({
    type: "/problems/x",
    title: "X",
    status,
    detail: "x",
    code: "x",
    request_id: "r",
  });

  test("a response the document allows passes", async () => {
    const res = await h.call("GET", "/healthz");
    expect(await checker.problems("GET", "/healthz", res)).toEqual([]);
    expect(await checker.problems("GET", "/tenants/me", json(problem(401), 401, PROBLEM_JSON))).toEqual([]);
  });

  test("an undocumented status is reported", async () => {
    const faults = await checker.problems("GET", "/healthz", json({ status: "ok" }, 418));
    expect(faults.join("\n")).toContain("status 418 is not documented");
  });

  test("a body that violates the status's schema is reported, with Ajv's errors", async () => {
    const body = (await (await h.call("GET", "/healthz")).json()) as Json;
    const faults = await checker.problems("GET", "/healthz", json({ ...body, status: "maybe", extra: 1 }));
    const text = faults.join("\n");
    expect(text).toContain("/status must be equal to constant");
    expect(text).toContain("must NOT have additional properties");
    const missing = await checker.problems(
      "GET",
      "/tenants/me",
      json({ ...problem(401), code: undefined }, 401, PROBLEM_JSON),
    );
    expect(missing.join("\n")).toContain("must have required property 'code'");
  });

  test("a media type the document does not list for the status is reported", async () => {
    const asJson = await checker.problems("GET", "/tenants/me", json(problem(401), 401, "application/json"));
    expect(asJson.join("\n")).toContain("answered application/json, which is not documented for 401");
    const html = new Response("<p>hi</p>", { status: 200, headers: { "content-type": "text/html" } });
    expect((await checker.problems("GET", "/healthz", html)).join("\n")).toContain("answered text/html");
    const notJson = new Response("{", { status: 200, headers: { "content-type": "application/json" } });
    expect((await checker.problems("GET", "/healthz", notJson)).join("\n")).toContain("the body is not JSON");
  });

  test("non-JSON bodies are checked by status and media type only; path parameters match any segment", async () => {
    const path = "/webhooks/crm/01JDB2X6J3KQ5W8Z3M4N7P9R2S";
    expect(checker.operationOf("POST", path)).toBe("POST /webhooks/{source}/{tenant_id}");
    const ack = new Response("<soap/>", { status: 200, headers: { "content-type": "text/xml" } });
    expect(await checker.problems("POST", path, ack)).toEqual([]);
  });

  test("a route miss (no operation for the method and path) is not checked", async () => {
    expect(checker.operationOf("GET", "/no/such/route")).toBeUndefined();
    expect(checker.operationOf("PUT", "/healthz")).toBeUndefined();
    expect(await checker.problems("GET", "/no/such/route", json({ anything: true }, 404))).toEqual([]);
  });

  test("the response is cloned: the caller can still read its body", async () => {
    const res = json({ status: "nope" });
    await checker.problems("GET", "/healthz", res);
    expect(await res.json()).toEqual({ status: "nope" });
  });

  test("h.call rejects a response the document does not allow, naming the operation, status and errors", async () => {
    const other = await startHarness();
    try {
      await other.call("GET", "/healthz"); // the checker of the process exists before the app misbehaves
      Object.assign(other.app, {
        handle: async () => json({ status: "broken" }, 200),
      });
      const error = await other.call("GET", "/healthz").then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error?.message).toContain("OpenAPI conformance: GET /healthz");
      expect(error?.message).toContain("answered 200 application/json");
      expect(error?.message).toContain("/status must be equal to constant");
    } finally {
      await other.close();
    }
  });
});
