/**
 * What the OpenAPI document says a request may be is what the service takes (issue 24): each rule
 * as the document states it, and the service answering it. The fuzz's contract checks
 * (test/fuzz/contract-check.ts) test the same over every operation with generated requests; these
 * are the named cases.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Harness, startHarness } from "./helpers/harness.ts";

// biome-ignore lint/suspicious/noExplicitAny: the document is read field by field
type Json = Record<string, any>;

let h: Harness;
let doc: Json;
let tenant: { tenant_id: string; token: string };

beforeAll(async () => {
  h = await startHarness({ env: { MEMORY_RUNTIME_EMBEDDING_DIMS: "8" } });
  doc = (await h.json("GET", "/openapi/json")).body;
  tenant = await h.createTenant("Request rules");
});

afterAll(async () => {
  await h.close();
});

function schema(s: Json): Json {
  const ref = s?.$ref as string | undefined;
  return ref ? { ...schema(doc.components.schemas[ref.replace("#/components/schemas/", "")]), ...s } : s;
}

function parameters(): Array<{ op: string; p: Json }> {
  const out: Array<{ op: string; p: Json }> = [];
  for (const [path, item] of Object.entries<Json>(doc.paths))
    for (const [method, op] of Object.entries<Json>(item))
      for (const p of op.parameters ?? []) out.push({ op: `${method.toUpperCase()} ${path}`, p });
  return out;
}

describe("query integers", () => {
  test("every `limit` is documented as an integer with its bounds, not Elysia's string union", () => {
    const limits = parameters().filter(({ p }) => p.in === "query" && p.name === "limit");
    expect(limits.length).toBeGreaterThanOrEqual(13);
    for (const { op, p } of limits) {
      expect({ op, type: p.schema.type, anyOf: p.schema.anyOf }).toEqual({
        op,
        type: "integer",
        anyOf: undefined,
      });
      expect(p.schema.minimum).toBe(1);
      expect(p.schema.maximum).toBeGreaterThan(1);
    }
  });

  for (const [query, status] of [
    ["limit=20", 200],
    ["limit=1e2", 200],
    ["limit=abc", 422],
    ["limit=", 422],
    ["limit=0", 422],
    ["limit=501", 422],
    ["limit=1.5", 422],
  ] as const) {
    test(`GET /memory/facts?${query} → ${status}`, async () => {
      const { status: got, body } = await h.json("GET", `/memory/facts?${query}`, { token: tenant.token });
      expect(got).toBe(status);
      // The refusal says the rule, not "should be one of: 'integer', 'integer'".
      if (status === 422) expect(body.detail).toBe("query /limit: Expected an integer from 1 to 500");
    });
  }
});

describe("cursors", () => {
  test("documented as 1–64 base64url characters on every paged list", () => {
    const cursors = parameters().filter(({ p }) => p.in === "query" && p.name === "cursor");
    expect(cursors.length).toBeGreaterThanOrEqual(10);
    for (const { op, p } of cursors)
      expect({ op, pattern: p.schema.pattern }).toEqual({ op, pattern: "^[A-Za-z0-9_-]{1,64}$" });
  });

  test("an empty cursor= is refused like any other value the document forbids", async () => {
    const { status, body } = await h.json("GET", "/memory/facts?cursor=", { token: tenant.token });
    expect(status).toBe(422);
    expect(body.errors[0].path).toBe("/cursor");
  });
});

describe("unknown query parameters are ignored, everywhere", () => {
  test("the document declares no closed query object", () => {
    expect(JSON.stringify(doc.paths)).not.toContain(
      '"in":"query","required":false,"schema":{"additionalProperties":false',
    );
    for (const { p } of parameters()) expect(p.name).not.toBe("additionalProperties");
  });

  for (const path of ["/memory/facts", "/tenants", "/memory/facts/00000000"]) {
    test(`GET ${path}: an unknown parameter changes nothing`, async () => {
      const plain = await h.json("GET", path, { token: tenant.token });
      const extra = await h.json("GET", `${path}${path.includes("?") ? "&" : "?"}zz_unknown=1&limit_=x`, {
        token: tenant.token,
      });
      expect(extra.status).toBe(plain.status);
    });
  }
});

describe("patterns use ASCII digits", () => {
  test("no `\\d` in any pattern of the document", () => {
    const patterns: string[] = [];
    const walk = (v: unknown) => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === "object")
        for (const [k, x] of Object.entries(v))
          k === "pattern" && typeof x === "string" ? patterns.push(x) : walk(x);
    };
    walk(doc);
    expect(patterns.length).toBeGreaterThan(10);
    expect(patterns.filter((p) => p.includes("\\d"))).toEqual([]);
  });

  test("timestamps: format date-time, and an impossible day is refused", async () => {
    const valid = parameters().find(({ p }) => p.name === "valid_at")!.p.schema;
    expect(valid.format).toBe("date-time");
    expect(new RegExp(valid.pattern).test("2026-02-28T10:00:00Z")).toBe(true);
    expect(new RegExp(valid.pattern).test("2026-13-01T10:00:00Z")).toBe(false);
    const bad = await h.json("GET", "/memory/facts?valid_at=2026-02-30T10:00:00Z", { token: tenant.token });
    expect(bad.status).toBe(422);
    // Year 0000 is a leap year (Date.UTC would read it as 1900, which is not).
    const leap = await h.json("GET", "/memory/facts?valid_at=0000-02-29T00:00:00Z", { token: tenant.token });
    expect(leap.status).toBe(200);
  });
});

describe("the stream's categories", () => {
  const categories = () =>
    parameters().find(({ op, p }) => op === "GET /memory/stream" && p.name === "categories")!.p;

  test("documented as a comma-separated list of the six names", () => {
    const re = new RegExp(categories().schema.pattern, "u");
    for (const ok of ["fact", "fact,decision", " fact , outcome ", "", "fact,,"])
      expect(re.test(ok)).toBe(true);
    for (const bad of ["facts", "fact;decision", "nope"]) expect(re.test(bad)).toBe(false);
  });

  test("a name outside the list is refused, as the pattern says", async () => {
    const { status, body } = await h.json("GET", "/memory/stream?categories=facts", { token: tenant.token });
    expect(status).toBe(422);
    expect(body.errors[0].path).toBe("/categories");
  });
});

describe("embedding", () => {
  test("documented with the configured dimension, float32 bounds, and when a write takes one", () => {
    const search = schema(doc.components.schemas.SearchRequest).properties.embedding;
    expect([search.minItems, search.maxItems]).toEqual([8, 8]);
    expect(search.items.exclusiveMaximum).toBe(3.4028235677973366e38);
    expect(search.contains).toBeDefined();
    const write = schema(doc.components.schemas.FactInput).properties.embedding;
    expect(write.description).toContain(
      "Accepted only when the runtime's embedder is `client`; this one's is `hash`",
    );
    expect(schema(doc.components.schemas.FactInput).required).toEqual(["content"]);
  });

  test("under an embedder other than `client`, every write's schema refuses the field itself", () => {
    // Every schema of the document with an `embedding` property that is not a read or a search:
    // the six *Input schemas and the batch items (inline or by reference).
    const writes: Array<[string, Record<string, unknown>]> = [];
    const visit = (value: unknown, at: string): void => {
      if (!value || typeof value !== "object") return;
      const embedding = (value as { properties?: { embedding?: Record<string, unknown> } }).properties
        ?.embedding;
      if (embedding && String(embedding.description ?? "").startsWith("Accepted only when"))
        writes.push([at, embedding]);
      for (const [k, child] of Object.entries(value)) visit(child, `${at}/${k}`);
    };
    visit(doc, "#");
    expect(writes.length).toBeGreaterThanOrEqual(6);
    for (const [at, e] of writes)
      expect({ at, not: e.not, type: e.type }).toEqual({ at, not: {}, type: undefined });
  });

  test("the service answers as documented: a write refuses one, a search takes exactly 8 numbers", async () => {
    const token = tenant.token;
    const write = await h.json("POST", "/memory/facts", {
      token,
      body: { content: "x", embedding: [1, 0, 0, 0, 0, 0, 0, 0] },
    });
    expect(write.status).toBe(422);
    const ok = await h.json("POST", "/memory/search", {
      token,
      body: { embedding: [1, 0, 0, 0, 0, 0, 0, 0] },
    });
    expect(ok.status).toBe(200);
    const short = await h.json("POST", "/memory/search", { token, body: { embedding: [1, 0] } });
    expect(short.status).toBe(422);
    const zeros = await h.json("POST", "/memory/search", {
      token,
      body: { embedding: [0, 0, 0, 0, 0, 0, 0, 0] },
    });
    expect(zeros.status).toBe(422);
  });

  test("with a `client` embedder the document requires it on writes", async () => {
    const client = await startHarness({
      env: { MEMORY_RUNTIME_EMBEDDER: "client", MEMORY_RUNTIME_EMBEDDING_DIMS: "4" },
    });
    try {
      const d = (await client.json("GET", "/openapi/json")).body;
      const input = d.components.schemas.FactInput;
      expect(input.required).toEqual(["content", "embedding"]);
      expect(input.properties.embedding.description).toStartWith("Required");
      expect([input.properties.embedding.minItems, input.properties.embedding.maxItems]).toEqual([4, 4]);
    } finally {
      await client.close();
    }
  });
});

describe("tenant names", () => {
  test("documented as 1–128 characters after trimming, and answered so", async () => {
    const name = doc.components.schemas.CreateTenantRequest.properties.name;
    const re = new RegExp(name.pattern, "u");
    expect(re.test("a".repeat(128))).toBe(true);
    expect(re.test(`  ${"a".repeat(128)}  `)).toBe(true);
    expect(re.test("a".repeat(129))).toBe(false);
    expect(re.test("a\u200bb")).toBe(false);
    expect(re.test("   ")).toBe(false);
    const token = h.adminToken;
    expect((await h.json("POST", "/admin/tenants", { token, body: { name: "b".repeat(129) } })).status).toBe(
      422,
    );
    expect(
      (await h.json("POST", "/admin/tenants", { token, body: { name: "zero\u200bwidth" } })).status,
    ).toBe(422);
    expect(
      (await h.json("POST", "/admin/tenants", { token, body: { name: ` ${"c".repeat(128)} ` } })).status,
    ).toBe(201);
  });
});

describe("erase, subscriptions, MCP, idempotency", () => {
  test("erase documents that it needs ids, subject or tags; `{}` is a 422", async () => {
    const erase = doc.components.schemas.EraseRequest;
    expect(erase.anyOf).toEqual([{ required: ["ids"] }, { required: ["subject"] }, { required: ["tags"] }]);
    const res = await h.json("POST", `/admin/tenants/${tenant.tenant_id}/erase`, {
      token: h.adminToken,
      body: {},
    });
    expect(res.status).toBe(422);
  });

  test("a subscription's url and secret are documented by the rule the service applies", async () => {
    const body = doc.components.schemas.SubscriptionRequest.properties;
    expect(body.url.format).toBe("uri");
    const url = new RegExp(body.url.pattern);
    for (const ok of ["https://hooks.example.com/x?y=1", "http://127.0.0.1:8080/hook", "https://10.0.0.1/"])
      expect(url.test(ok)).toBe(true);
    for (const bad of [
      "not a url",
      "http://example.com/",
      "https://user:pw@example.com/",
      "ftp://example.com/",
    ])
      expect(url.test(bad)).toBe(false);
    const secret = new RegExp(body.secret.pattern);
    expect(secret.test(`whsec_${Buffer.alloc(24, 1).toString("base64")}`)).toBe(true);
    expect(secret.test(`whsec_${Buffer.alloc(23, 1).toString("base64")}`)).toBe(false);
    const path = `/admin/subscriptions/${tenant.tenant_id}`;
    const refused = await h.json("POST", path, {
      token: h.adminToken,
      body: { url: "not a url", events: ["entry.created"] },
    });
    expect(refused.status).toBe(422);
    const http = await h.json("POST", path, {
      token: h.adminToken,
      body: { url: "http://example.com/", events: ["entry.created"] },
    });
    expect(http.status).toBe(422);
  });

  test("POST /mcp declares its Accept rule, and refuses without it (406)", async () => {
    const op = doc.paths["/mcp"].post;
    const accept = op.parameters.find((p: Json) => p.name === "Accept");
    expect(accept).toMatchObject({ in: "header", required: true });
    const re = new RegExp(accept.schema.pattern);
    expect(re.test("application/json, text/event-stream")).toBe(true);
    expect(re.test("application/json")).toBe(false);
    const message = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    const res = await h.call("POST", "/mcp", {
      token: tenant.token,
      body: message,
      headers: { accept: "application/json" },
    });
    expect(res.status).toBe(406);
  });

  test("an Idempotency-Key reused with another body: described, and a 422", async () => {
    const op = doc.paths["/memory/facts"].post;
    expect(op.responses["422"].description).toContain("idempotency_mismatch");
    expect(op.parameters.find((p: Json) => p.name === "idempotency-key").schema.description).toContain("422");
    const headers = { "idempotency-key": "rules-1" };
    const first = await h.json("POST", "/memory/facts", {
      token: tenant.token,
      body: { content: "one" },
      headers,
    });
    expect(first.status).toBe(201);
    const other = await h.json("POST", "/memory/facts", {
      token: tenant.token,
      body: { content: "two" },
      headers,
    });
    expect([other.status, other.body.code]).toEqual([422, "idempotency_mismatch"]);
  });

  test("a body the route may go without is documented as optional", () => {
    const replay = doc.paths["/admin/webhooks/replay/{tenant_id}"]?.post;
    if (replay) expect(replay.requestBody.required).toBe(false);
    expect(doc.paths["/memory/facts"].post.requestBody.required).toBe(true);
  });
});
