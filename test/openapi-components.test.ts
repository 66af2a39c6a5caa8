/**
 * What the OpenAPI document says beyond the routes' own schemas: `servers`, the named component
 * schemas the operations refer to (one per category, each request body, the problem document, …),
 * the write answers narrowed per category, the response headers, and the API page's own files.
 * The transform that names schemas (src/http/openapi-components.ts) is unit-tested at the end.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Type } from "@sinclair/typebox";
import { hoistNamedSchemas } from "../src/http/openapi-components.ts";
import { CATEGORIES } from "../src/models/category.ts";
import { schemaPrefix } from "../src/models/entry.ts";
import { named, SCHEMA_NAME_KEY } from "../src/models/schema-name.ts";
import { type Harness, startHarness } from "./helpers/harness.ts";
import { checkerFromDocument } from "./helpers/openapi-conformance.ts";

// biome-ignore lint/suspicious/noExplicitAny: the document is read field by field
type Json = Record<string, any>;

let h: Harness;
let doc: Json;
let token: string;

beforeAll(async () => {
  h = await startHarness();
  doc = (await (await h.call("GET", "/openapi/json")).json()) as Json;
  token = (await h.createTenant("Components Co")).token;
});

afterAll(async () => {
  await h.close();
});

const REF = "#/components/schemas/";

/** Every `$ref` to a component schema under `value`. */
function refsIn(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) refsIn(v, out);
  else if (value && typeof value === "object")
    for (const [k, v] of Object.entries(value))
      if (k === "$ref" && typeof v === "string" && v.startsWith(REF)) out.add(v.slice(REF.length));
      else refsIn(v, out);
  return out;
}

function operations(): Array<[string, Json]> {
  return Object.entries<Json>(doc.paths).flatMap(([template, item]) =>
    Object.entries<Json>(item).map(
      ([method, op]) => [`${method.toUpperCase()} ${template}`, op] as [string, Json],
    ),
  );
}

const op = (method: string, template: string): Json => doc.paths[template][method];
const bodyRef = (o: Json) => o.requestBody?.content?.["application/json"]?.schema?.$ref;
const answerRef = (o: Json, status: number, type = "application/json") =>
  o.responses[status]?.content?.[type]?.schema?.$ref;

/** The component names the document must hold: the categories' and every shared model's. */
const PER_CATEGORY = ["Input", "Entry", "Written", "BatchInput", "BatchReply", "Page"];
const SHARED = [
  "Problem",
  "Entry",
  "EntryHistory",
  "SimilarEntry",
  "SearchRequest",
  "SearchResults",
  "SearchExplain",
  "WebhookSummary",
  "WebhookQueued",
  "DeadLetter",
  "DeadLetterList",
  "DeadLetterReplay",
  "CreateTenantRequest",
  "CreatedTenant",
  "TenantItem",
  "TenantPage",
  "TenantRemoval",
  "CallerIdentity",
  "Role",
  "RoleList",
  "RoleRequest",
  "MintTokenRequest",
  "MintedToken",
  "Denial",
  "DenialPage",
  "AdminEvent",
  "AdminEventPage",
  "SubscriptionRequest",
  "SubscriptionCreated",
  "Subscription",
  "SubscriptionList",
  "SubscriptionDelivery",
  "SubscriptionDeliveryList",
  "EraseRequest",
  "EraseReport",
  "ImportReport",
  "TenantStats",
  "RevenueReport",
  "JsonRpcMessage",
  "JsonRpcReply",
];
const EXPECTED = [
  ...SHARED,
  ...CATEGORIES.flatMap((c) => PER_CATEGORY.map((kind) => `${schemaPrefix(c)}${kind}`)),
];

describe("servers", () => {
  test("the document is valid OpenAPI 3.1 and names this service as its server, as the servers lint rules want", async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect({ valid: result.valid, errors: result.errors }).toEqual({ valid: true, errors: undefined });
    // Spectral's oas3-api-servers (present, non-empty), oas3-server-trailing-slash and
    // oas3-server-not-example.com; Redocly's no-empty-servers and no-server-example.com.
    expect(Array.isArray(doc.servers) && doc.servers.length > 0).toBe(true);
    for (const server of doc.servers) {
      expect(typeof server.url).toBe("string");
      expect(server.url === "/" || !server.url.endsWith("/")).toBe(true);
      expect(server.url).not.toContain("example.com");
      expect(typeof server.description).toBe("string");
    }
    // A relative server is this service, wherever the document was fetched from.
    expect(new URL(doc.servers[0].url, "http://127.0.0.1:8080/openapi/json").href).toBe(
      "http://127.0.0.1:8080/",
    );
  });
});

describe("named component schemas", () => {
  test("every expected name is a component, every component is referred to, and every reference resolves", () => {
    const names = Object.keys(doc.components.schemas);
    // Others may be added (a route's own models); these must be there.
    expect(EXPECTED.filter((n) => !names.includes(n))).toEqual([]);
    const fromPaths = refsIn(doc.paths);
    const fromComponents = refsIn(doc.components.schemas);
    const referred = new Set([...fromPaths, ...fromComponents]);
    expect(names.filter((n) => !referred.has(n))).toEqual([]);
    expect([...referred].filter((n) => !names.includes(n))).toEqual([]);
    // No mark of the source schemas is left.
    expect(JSON.stringify(doc)).not.toContain(SCHEMA_NAME_KEY);
  });

  test("the operations refer to them: bodies, answers and problem documents", () => {
    for (const category of CATEGORIES) {
      const prefix = schemaPrefix(category);
      const plural = `/memory/${category === "relationship" ? "relationships" : `${category}s`}`;
      expect(bodyRef(op("post", plural))).toBe(`${REF}${prefix}Input`);
      expect(answerRef(op("post", plural), 201)).toBe(`${REF}${prefix}Written`);
      expect(answerRef(op("post", plural), 200)).toBe(`${REF}${prefix}Written`);
      expect(bodyRef(op("post", `${plural}/batch`))).toBe(`${REF}${prefix}BatchInput`);
      expect(answerRef(op("post", `${plural}/batch`), 201)).toBe(`${REF}${prefix}BatchReply`);
      expect(answerRef(op("get", plural), 200)).toBe(`${REF}${prefix}Page`);
      expect(answerRef(op("get", `${plural}/{sha8}`), 200)).toBe(`${REF}${prefix}Entry`);
      expect(answerRef(op("delete", `${plural}/{sha8}`), 200)).toBe(`${REF}${prefix}Entry`);
      expect(answerRef(op("get", `${plural}/{sha8}/history`), 200)).toBe(`${REF}EntryHistory`);
    }
    expect(bodyRef(op("post", "/memory/search"))).toBe(`${REF}SearchRequest`);
    expect(answerRef(op("post", "/memory/search"), 200)).toBe(`${REF}SearchResults`);
    expect(bodyRef(op("post", "/admin/tenants"))).toBe(`${REF}CreateTenantRequest`);
    expect(answerRef(op("post", "/admin/tenants"), 201)).toBe(`${REF}CreatedTenant`);
    expect(answerRef(op("get", "/admin/tenants"), 200)).toBe(`${REF}TenantPage`);
    expect(answerRef(op("get", "/tenants/me"), 200)).toBe(`${REF}CallerIdentity`);
    expect(bodyRef(op("post", "/admin/roles/{tenant_id}"))).toBe(`${REF}RoleRequest`);
    expect(bodyRef(op("post", "/admin/jwt/{tenant_id}"))).toBe(`${REF}MintTokenRequest`);
    expect(answerRef(op("get", "/admin/webhooks/dead-letters/{tenant_id}"), 200)).toBe(
      `${REF}DeadLetterList`,
    );
    expect(answerRef(op("post", "/admin/webhooks/replay/{tenant_id}/{event_id}"), 200)).toBe(
      `${REF}DeadLetterReplay`,
    );
    expect(answerRef(op("post", "/admin/webhooks/discard/{tenant_id}/{event_id}"), 200)).toBe(
      `${REF}DeadLetterDiscard`,
    );
    expect(bodyRef(op("post", "/admin/subscriptions/{tenant_id}"))).toBe(`${REF}SubscriptionRequest`);
    expect(answerRef(op("get", "/admin/subscriptions/{tenant_id}"), 200)).toBe(`${REF}SubscriptionList`);
    const webhook = op("post", "/webhooks/{source}/{tenant_id}");
    expect(refsIn(webhook.responses[200])).toContain("WebhookSummary");
    expect(refsIn(webhook.responses[202])).toContain("WebhookQueued");
    // Every problem document is the one component, with its status's meaning beside the $ref; the
    // exceptions, readiness's 503 and the memory writes' 403, are problem documents with extension
    // members (`checks`; the trust rule's `entry_id`, `entry_trust`, `writer_trust`).
    let problems = 0;
    const trustRefusal = (key: string, status: string) =>
      status === "403" &&
      /^(POST|DELETE) \/memory\/(decisions|exceptions|facts|workflows|relationships|outcomes)(\/batch|\/\{sha8\})?$/.test(
        key,
      );
    for (const [key, o] of operations())
      for (const [status, response] of Object.entries<Json>(o.responses ?? {})) {
        const media = response.content?.["application/problem+json"];
        if (!media) continue;
        problems++;
        const ref =
          key === "GET /readyz"
            ? `${REF}NotReady`
            : trustRefusal(key, status)
              ? `${REF}TrustProblem`
              : `${REF}Problem`;
        expect({ key, status, ref: media.schema.$ref }).toEqual({ key, status, ref });
      }
    const notReady = doc.components.schemas.NotReady;
    const problem = doc.components.schemas.Problem;
    expect(notReady.required).toEqual(expect.arrayContaining(problem.required));
    expect(Object.keys(notReady.properties)).toEqual([...Object.keys(problem.properties), "checks"]);
    const trust = doc.components.schemas.TrustProblem;
    expect(Object.keys(trust.properties)).toEqual([
      ...Object.keys(problem.properties),
      "entry_id",
      "entry_trust",
      "writer_trust",
    ]);
    expect(problems).toBeGreaterThan(100);
  });

  test("a write's answer is narrowed to its category: a fact write answers a fact entry", async () => {
    const fact = doc.components.schemas.FactEntry;
    const decision = doc.components.schemas.DecisionEntry;
    expect(fact.properties.category).toEqual({ const: "fact", type: "string" });
    expect(Object.keys(fact.properties)).not.toContain("rationale");
    expect(Object.keys(decision.properties)).toEqual(
      expect.arrayContaining(["rationale", "chosen", "status"]),
    );
    expect(doc.components.schemas.OutcomeEntry.properties.category.const).toBe("outcome");
    expect(doc.components.schemas.FactWritten.properties.similar.items.$ref).toBe(`${REF}SimilarEntry`);

    // The answer of a real fact write conforms; the same answer claiming another category does not.
    const res = await h.call("POST", "/memory/facts", { token, body: { content: "Acme pays net 30" } });
    expect(res.status).toBe(201);
    const entry = (await res.json()) as Json;
    const checker = checkerFromDocument(doc);
    const answer = (body: unknown) =>
      new Response(JSON.stringify(body), { status: 201, headers: { "content-type": "application/json" } });
    expect(await checker.problems("POST", "/memory/facts", answer(entry))).toEqual([]);
    const asDecision = await checker.problems(
      "POST",
      "/memory/facts",
      answer({ ...entry, category: "decision", rationale: "x" }),
    );
    expect(asDecision.join("\n")).toContain("must be equal to constant");
  });
});

describe("response headers", () => {
  test("declared: X-Request-Id on every response, Retry-After on 429 and 503, Allow on 405, Location on redirects and writes' 201s", () => {
    expect(Object.keys(doc.components.headers).sort()).toEqual(
      ["Allow", "Idempotent-Replayed", "Location", "Retry-After", "X-Request-Id"].sort(),
    );
    let responses = 0;
    for (const [key, o] of operations())
      for (const [status, response] of Object.entries<Json>(o.responses)) {
        responses++;
        const names = Object.keys(response.headers ?? {});
        const want = ["X-Request-Id"];
        if (status === "429" || status === "503") want.push("Retry-After");
        if (status === "405") want.push("Allow");
        if (/^3\d\d$/.test(status) && status !== "304") want.push("Location");
        expect({ key, status, names }).toEqual({ key, status, names: expect.arrayContaining(want) });
      }
    expect(responses).toBeGreaterThan(500);
    const write = op("post", "/memory/facts").responses;
    expect(write[201].headers.Location).toEqual({ $ref: "#/components/headers/Location" });
    expect(write[200].headers["Idempotent-Replayed"]).toEqual({
      $ref: "#/components/headers/Idempotent-Replayed",
    });
    expect(op("post", "/memory/facts/batch").responses[200].headers["Idempotent-Replayed"]).toBeDefined();
    // The route-level list of headers is consumed by the transform.
    expect(JSON.stringify(doc.paths)).not.toContain("x-response-headers");
  });

  test("sent: a write's 201 names the entry's URL in Location, and a replayed write says so", async () => {
    const key = { "idempotency-key": "components-replay-1" };
    // A fixed valid_from: the same body again is identical content (valid_from defaults to now).
    const body = { content: "Ada buys", valid_from: "2026-01-01T00:00:00.000Z" };
    const first = await h.call("POST", "/memory/facts", {
      token,
      body,
      headers: key,
    });
    expect(first.status).toBe(201);
    const entry = (await first.json()) as Json;
    expect(first.headers.get("location")).toBe(`/memory/facts/${entry.id}`);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(first.headers.get("x-request-id")).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    const read = await h.call("GET", first.headers.get("location")!, { token });
    expect(read.status).toBe(200);
    expect(((await read.json()) as Json).id).toBe(entry.id);

    const replay = await h.call("POST", "/memory/facts", {
      token,
      body,
      headers: key,
    });
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.headers.get("location")).toBeNull();
    expect(((await replay.json()) as Json).id).toBe(entry.id);

    // Identical content without a key is a 200 too, but not a replay.
    const identical = await h.call("POST", "/memory/facts", { token, body });
    expect(identical.status).toBe(200);
    expect(identical.headers.get("idempotent-replayed")).toBeNull();

    const batchKey = { "idempotency-key": "components-batch-1" };
    const batch = { entries: [{ content: "Grace sells" }] };
    const written = await h.call("POST", "/memory/facts/batch", { token, body: batch, headers: batchKey });
    expect(written.status).toBe(201);
    expect(written.headers.get("idempotent-replayed")).toBeNull();
    const again = await h.call("POST", "/memory/facts/batch", { token, body: batch, headers: batchKey });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
  });
});

describe("the API page's files", () => {
  test("the page and each file: its content type, a validator, a cache policy; 304 when the browser has it", async () => {
    const page = await h.call("GET", "/openapi");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = page.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain("unsafe");
    const html = await page.text();
    for (const src of [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!))
      expect({ src, local: src.startsWith("/openapi/assets/") }).toEqual({ src, local: true });

    const types: Record<string, string> = {
      "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
      "swagger-ui.css": "text/css; charset=utf-8",
      "init.js": "text/javascript; charset=utf-8",
      "favicon-32x32.png": "image/png",
    };
    expect(op("get", "/openapi/assets/{file}").parameters[0].schema.enum.sort()).toEqual(
      Object.keys(types).sort(),
    );
    for (const [file, type] of Object.entries(types)) {
      const res = await h.call("GET", `/openapi/assets/${file}`);
      expect({ file, status: res.status, type: res.headers.get("content-type") }).toEqual({
        file,
        status: 200,
        type,
      });
      expect(res.headers.get("cache-control")).toBe("public, max-age=86400");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      const etag = res.headers.get("etag")!;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100);
      const cached = await h.call("GET", `/openapi/assets/${file}`, { headers: { "if-none-match": etag } });
      expect(cached.status).toBe(304);
      expect(await cached.text()).toBe("");
    }
    // The viewer's options: this service's document, no online validator.
    const init = await (await h.call("GET", "/openapi/assets/init.js")).text();
    expect(init).toContain('"url":"/openapi/json"');
    expect(init).toContain('"validatorUrl":"none"');
    // No source map is pointed at (it is not served).
    expect(await (await h.call("GET", "/openapi/assets/swagger-ui.css")).text()).not.toContain(
      "sourceMappingURL",
    );
  });

  test("an unknown or hostile file name is a 404 problem document", async () => {
    for (const name of [
      "nope.js",
      "..%2Fpackage.json",
      "swagger-ui-bundle.js.map",
      "__proto__",
      "constructor",
    ]) {
      const res = await h.call("GET", `/openapi/assets/${name}`);
      expect({ name, status: res.status }).toEqual({ name, status: 404 });
      expect(res.headers.get("content-type")).toBe("application/problem+json");
    }
  });
});

describe("naming schemas (the transform)", () => {
  const docOf = (paths: Json): Json => ({ openapi: "3.1.0", info: {}, paths, components: {} });
  const mark = (name: string, schema: Json, extra: Json = {}) => ({
    ...schema,
    [SCHEMA_NAME_KEY]: name,
    ...extra,
  });

  test("a named schema is written once and referred to; annotations shared stay on it, others beside each $ref", () => {
    const thing = { type: "object", properties: { a: { type: "string" } } };
    const doc = docOf({
      "/x": {
        get: {
          responses: {
            200: {
              content: { "application/json": { schema: mark("Thing", thing, { description: "one" }) } },
            },
            201: {
              content: { "application/json": { schema: mark("Thing", thing, { description: "two" }) } },
            },
            202: {
              content: {
                "application/json": {
                  schema: { type: "array", items: mark("Thing", thing, { description: "one" }) },
                },
              },
            },
          },
        },
      },
    });
    hoistNamedSchemas(doc);
    expect(doc.components.schemas).toEqual({ Thing: thing });
    const responses = doc.paths["/x"].get.responses;
    expect(responses[200].content["application/json"].schema).toEqual({
      $ref: `${REF}Thing`,
      description: "one",
    });
    expect(responses[201].content["application/json"].schema).toEqual({
      $ref: `${REF}Thing`,
      description: "two",
    });
    expect(responses[202].content["application/json"].schema.items.$ref).toBe(`${REF}Thing`);
  });

  test("names nest (the inner schema is referred to from the outer) and a description all share stays on the component", () => {
    const inner = mark("Inner", { type: "string" }, { description: "the same everywhere" });
    const outer = mark("Outer", { type: "object", properties: { inner } });
    const doc = docOf({
      "/y": { post: { requestBody: { content: { "application/json": { schema: outer } } } } },
    });
    hoistNamedSchemas(doc);
    expect(doc.components.schemas.Inner).toEqual({ type: "string", description: "the same everywhere" });
    expect(doc.components.schemas.Outer.properties.inner).toEqual({ $ref: `${REF}Inner` });
    expect(doc.paths["/y"].post.requestBody.content["application/json"].schema).toEqual({
      $ref: `${REF}Outer`,
    });
  });

  test("two different schemas under one name are refused, naming the name", () => {
    const doc = docOf({
      "/z": {
        get: {
          responses: {
            200: { content: { "application/json": { schema: mark("Twice", { type: "string" }) } } },
            201: { content: { "application/json": { schema: mark("Twice", { type: "integer" }) } } },
          },
        },
      },
    });
    expect(() => hoistNamedSchemas(doc)).toThrow("two different schemas are named Twice");
  });

  test("named() marks a copy, keeps validation as it was, and refuses a name a component key cannot be", () => {
    const plain = Type.Object({ a: Type.String() });
    const marked = named("Plain", plain);
    expect((marked as Json)[SCHEMA_NAME_KEY]).toBe("Plain");
    expect((plain as Json)[SCHEMA_NAME_KEY]).toBeUndefined();
    expect(() => named("has space", plain)).toThrow();
    expect(() => named("a/b", plain)).toThrow();
  });
});
