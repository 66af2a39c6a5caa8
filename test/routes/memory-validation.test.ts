import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CATEGORIES, type Category, PLURAL_OF } from "../../src/models/category.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

let h: Harness;
let token: string;
let decisionId: string;
let factId: string;

beforeAll(async () => {
  h = await startHarness();
  const t = await h.createTenant();
  token = t.token;
  decisionId = (await h.json("POST", "/memory/decisions", { token, body: { content: "A decision to name" } }))
    .body.id;
  factId = (await h.json("POST", "/memory/facts", { token, body: { content: "A fact to name" } })).body.id;
});
afterAll(() => h.close());

/** The smallest valid body of each category. */
function minimal(category: Category): Record<string, unknown> {
  switch (category) {
    case "relationship":
      return { content: "r", subject: "s", predicate: "p", object: "o" };
    case "outcome":
      return { content: "o", decision_id: decisionId, result: "success" };
    default:
      return { content: `${category} body` };
  }
}

async function expect422(category: Category, body: unknown, pathHint?: string) {
  const res = await h.call("POST", `/memory/${PLURAL_OF[category]}`, { token, body });
  const problem = await expectProblem(res, 422, "validation_failed");
  if (pathHint) expect(JSON.stringify(problem)).toContain(pathHint);
  return problem;
}

const tagsOf = (n: number, len = 3) => Array.from({ length: n }, (_, i) => `t${i}`.padEnd(len, "x"));

describe("422 on every field rule (every category shares the base rules)", () => {
  const base: Array<[string, Record<string, unknown>, string]> = [
    ["content missing", { content: undefined }, "content"],
    ["content empty", { content: "" }, "content"],
    ["content over 32768 characters", { content: "x".repeat(32_769) }, "content"],
    ["content over 32768 characters of emoji", { content: "🦊".repeat(32_769) }, "content"],
    ["a tag over 64 characters of emoji", { tags: ["🦊".repeat(65)] }, "tags"],
    ["content not a string", { content: 42 }, "content"],
    ["content null", { content: null }, "content"],
    ["more than 64 tags", { tags: tagsOf(65) }, "tags"],
    ["a tag over 64 characters", { tags: ["ok", "x".repeat(65)] }, "tags"],
    ["an empty tag", { tags: ["ok", ""] }, "tags"],
    ["tags not an array", { tags: "a,b" }, "tags"],
    ["a tag not a string", { tags: [1] }, "tags"],
    ["data over 16 KiB", { data: { blob: "x".repeat(16 * 1024) } }, "data"],
    ["data an array", { data: [1, 2] }, "data"],
    ["data a string", { data: "x" }, "data"],
    ["data null", { data: null }, "data"],
    ["valid_from not RFC 3339", { valid_from: "last tuesday" }, "valid_from"],
    ["valid_from date only", { valid_from: "2026-01-01" }, "valid_from"],
    ["valid_from without offset", { valid_from: "2026-01-01T00:00:00" }, "valid_from"],
    ["valid_from month 13, day 40", { valid_from: "2026-13-40T00:00:00Z" }, "valid_from"],
    ["valid_from epoch number", { valid_from: 1767225600000 }, "valid_from"],
    ["valid_to not RFC 3339", { valid_to: "soon" }, "valid_to"],
    [
      "valid_to before valid_from",
      { valid_from: "2026-01-02T00:00:00Z", valid_to: "2026-01-01T00:00:00Z" },
      "valid_to",
    ],
    [
      "valid_to equal to valid_from",
      { valid_from: "2026-01-02T00:00:00Z", valid_to: "2026-01-02T01:00:00+01:00" },
      "valid_to",
    ],
    ["supersedes and corrects together", { supersedes: "aaaaaaaa", corrects: "bbbbbbbb" }, "corrects"],
    ["supersedes upper-case hex", { supersedes: "ABCDEF12" }, "supersedes"],
    ["supersedes too short", { supersedes: "abc" }, "supersedes"],
    ["corrects not hex", { corrects: "zzzzzzzz" }, "corrects"],
    ["corrects too long", { corrects: "123456789" }, "corrects"],
    ["supersedes a number", { supersedes: 12345678 }, "supersedes"],
    ["agent_id empty", { agent_id: "" }, "agent_id"],
    ["agent_id not a string", { agent_id: 7 }, "agent_id"],
    ["source without system", { source: { event_id: "e1" } }, "source"],
    ["source with an unknown field", { source: { system: "crm", secret: "x" } }, "source"],
    ["an unknown top-level field", { colour: "blue" }, "colour"],
    ["a server field: id", { id: "aaaaaaaa" }, "id"],
    ["a server field: recorded_at", { recorded_at: "2026-01-01T00:00:00Z" }, "recorded_at"],
    ["a server field: created_by", { created_by: "someone-else" }, "created_by"],
    ["a server field: expired_at", { expired_at: null }, "expired_at"],
    ["a server field: category", { category: "decision" }, "category"],
    ["embedding while the embedder is hash", { embedding: Array(384).fill(0.1) }, "embedding"],
    ["tenant_id not a string", { tenant_id: 5 }, "tenant_id"],
  ];
  for (const category of CATEGORIES) {
    for (const [name, over, path] of base) {
      test(`${category}: ${name}`, async () => {
        await expect422(category, { ...minimal(category), ...over }, path);
      });
    }
  }
});

describe("422 on category field rules", () => {
  const typed: Array<[Category, string, Record<string, unknown>, string]> = [
    ["decision", "status outside open|resolved", { status: "closed" }, "status"],
    ["decision", "options not strings", { options: [1, 2] }, "options"],
    ["decision", "amount a string", { amount: "10" }, "amount"],
    ["decision", "currency lower case", { currency: "usd" }, "currency"],
    ["decision", "currency of 4 letters", { currency: "USDT" }, "currency"],
    ["exception", "severity not in the enum", { severity: "urgent" }, "severity"],
    ["exception", "severity in another case", { severity: "HIGH" }, "severity"],
    ["exception", "status outside open|resolved", { status: "pending" }, "status"],
    ["workflow", "steps a string", { steps: "do it" }, "steps"],
    ["workflow", "an empty step", { steps: ["a", ""] }, "steps"],
    ["relationship", "subject missing", { subject: undefined }, "subject"],
    ["relationship", "predicate missing", { predicate: undefined }, "predicate"],
    ["relationship", "object missing", { object: undefined }, "object"],
    ["relationship", "subject empty", { subject: "" }, "subject"],
    ["relationship", "object not a string", { object: { id: 1 } }, "object"],
    ["outcome", "decision_id missing", { decision_id: undefined }, "decision_id"],
    ["outcome", "result missing", { result: undefined }, "result"],
    ["outcome", "result outside success|failure|neutral", { result: "win" }, "result"],
    ["outcome", "decision_id malformed", { decision_id: "DECISION" }, "decision_id"],
    ["outcome", "decision_id naming a fact", { decision_id: "__fact__" }, "decision_id"],
    ["outcome", "decision_id naming an unknown id", { decision_id: "0badc0de" }, "decision_id"],
    ["outcome", "currency not ISO 4217 (digits)", { currency: "12A" }, "currency"],
    ["outcome", "currency of 2 letters", { currency: "US" }, "currency"],
    ["outcome", "currency lower case", { currency: "eur" }, "currency"],
    ["outcome", "amount not a number", { amount: "1000" }, "amount"],
    // Typed fields of one category are unknown fields in another.
    ["fact", "a decision field on a fact", { rationale: "why" }, "rationale"],
    ["fact", "an outcome field on a fact", { decision_id: "__decision__" }, "decision_id"],
    // `subject` is every entry's scope (src/models/scope.ts): a relationship's `predicate` is its own.
    ["decision", "a relationship field on a decision", { predicate: "s" }, "predicate"],
  ];
  for (const [category, name, over, path] of typed) {
    test(`${category}: ${name}`, async () => {
      const resolved = Object.fromEntries(
        Object.entries(over).map(([k, v]) => [
          k,
          v === "__fact__" ? factId : v === "__decision__" ? decisionId : v,
        ]),
      );
      await expect422(category, { ...minimal(category), ...resolved }, path);
    });
  }

  test("a refused write writes nothing", async () => {
    const t = await h.createTenant();
    for (const body of [
      { content: "" },
      { content: "x", colour: 1 },
      { content: "x", valid_from: "2026-13-40T00:00:00Z" },
    ]) {
      expect((await h.call("POST", "/memory/facts", { token: t.token, body })).status).toBe(422);
    }
    expect((await h.json("GET", "/memory/facts", { token: t.token })).body.items).toEqual([]);
  });
});

describe("boundaries that are accepted", () => {
  const ok: Array<[string, Record<string, unknown>]> = [
    ["content of exactly 32768 characters", { content: "y".repeat(32_768) }],
    // Characters are code points: 32,768 emoji are 65,536 UTF-16 units and still within the limit.
    ["content of exactly 32768 emoji", { content: "🦊".repeat(32_768) }],
    ["64 tags of 64 characters", { tags: tagsOf(64, 64) }],
    ["a tag of 64 emoji", { tags: ["🐺".repeat(64)] }],
    ["an agent_id of 128 accented characters", { agent_id: "é".repeat(128) }],
    [
      "data of exactly 16 KiB",
      { data: { blob: "z".repeat(16 * 1024 - JSON.stringify({ blob: "" }).length) } },
    ],
    ["valid_to null", { valid_to: null }],
    [
      "valid_to 1 ms after valid_from",
      { valid_from: "2026-01-01T00:00:00.000Z", valid_to: "2026-01-01T00:00:00.001Z" },
    ],
    ["an RFC 3339 offset", { valid_from: "2026-01-01T12:00:00+05:30" }],
    [
      "a source",
      { source: { system: "manual", event_id: "ev-1", event_type: "note", url: "https://example.com/x" } },
    ],
  ];
  for (const [name, over] of ok) {
    test(`fact: ${name} → 201`, async () => {
      const res = await h.json("POST", "/memory/facts", {
        token,
        body: { content: `boundary ${name}`, ...over },
      });
      expect(res.status).toBe(201);
    });
  }

  test("an offset is normalised to UTC milliseconds", async () => {
    const res = await h.json("POST", "/memory/facts", {
      token,
      body: {
        content: "offset",
        valid_from: "2026-01-01T12:00:00+05:30",
        valid_to: "2026-01-02T00:00:00.5-01:00",
      },
    });
    expect(res.body.valid_from).toBe("2026-01-01T06:30:00.000Z");
    expect(res.body.valid_to).toBe("2026-01-02T01:00:00.500Z");
  });

  test("exception severity and outcome currency other than the defaults are kept", async () => {
    const e = await h.json("POST", "/memory/exceptions", {
      token,
      body: { content: "sev", severity: "critical" },
    });
    expect(e.body.severity).toBe("critical");
    const o = await h.json("POST", "/memory/outcomes", {
      token,
      body: {
        content: "in euros",
        decision_id: decisionId,
        result: "neutral",
        currency: "EUR",
        amount: -5.5,
      },
    });
    expect(o.status).toBe(201);
    expect(o.body).toMatchObject({ currency: "EUR", amount: -5.5 });
  });
});

describe("impossible calendar dates (RFC 3339 §5.7)", () => {
  // The pattern lets these through; they must not be silently rolled over into another instant.
  for (const valid_from of ["2026-02-30T00:00:00Z", "2026-04-31T00:00:00Z", "2026-01-01T24:00:00Z"]) {
    test(`valid_from ${valid_from} → 422`, async () => {
      await expect422("fact", { content: `impossible ${valid_from}`, valid_from }, "valid_from");
    });
  }
});

describe("body parsing", () => {
  test("malformed JSON → 400 bad_request", async () => {
    for (const raw of ["{", '{"content": }', "{'content': 'x'}", '{"content":"x"}}', "nul"]) {
      const res = await h.call("POST", "/memory/facts", {
        token,
        raw,
        headers: { "content-type": "application/json" },
      });
      await expectProblem(res, 400, "bad_request");
    }
  });

  test("an NDJSON body on a JSON route → 415, and nothing is written", async () => {
    for (const path of ["/memory/facts", "/memory/search"]) {
      const res = await h.call("POST", path, {
        token,
        raw: '{"content":"streamed"}\n',
        headers: { "content-type": "application/x-ndjson" },
      });
      await expectProblem(res, 415, "unsupported_media_type");
    }
    const { body } = await h.json("POST", "/memory/search", { token, body: { query: "streamed" } });
    expect(body.results).toEqual([]);
  });

  test("a body that is not UTF-8 → 400", async () => {
    const raw = new Uint8Array([0x7b, 0x22, 0x63, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    const res = await h.call("POST", "/memory/facts", {
      token,
      raw,
      headers: { "content-type": "application/json" },
    });
    await expectProblem(res, 400, "bad_request");
  });

  test("a body over 1 MiB → 413 (declared length)", async () => {
    const raw = JSON.stringify({ content: "x".repeat(1024 * 1024 + 16) });
    const res = await h.call("POST", "/memory/facts", {
      token,
      raw,
      headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(raw)) },
    });
    await expectProblem(res, 413, "payload_too_large");
  });

  test("a body over 1 MiB → 413 (streamed, no declared length)", async () => {
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"content":"'));
      },
      pull(controller) {
        if (sent > 1.5 * 1024 * 1024) {
          controller.enqueue(new TextEncoder().encode('"}'));
          controller.close();
          return;
        }
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const req = new Request("http://localhost/memory/facts", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    await expectProblem(await h.app.handle(req), 413, "payload_too_large");
  });

  const notObjects: Array<[string, string]> = [
    ["a JSON array", "[]"],
    ["an array of bodies", '[{"content":"x"}]'],
    ["null", "null"],
    ["a string", '"content"'],
    ["a number", "42"],
    ["true", "true"],
    ["an empty body", ""],
  ];
  for (const [name, raw] of notObjects) {
    test(`${name} as body → 422, never 500`, async () => {
      const res = await h.call("POST", "/memory/facts", {
        token,
        raw,
        headers: { "content-type": "application/json" },
      });
      await expectProblem(res, 422, "validation_failed");
    });
  }

  test("__proto__ as a top-level field is refused, not merged", async () => {
    const res = await h.call("POST", "/memory/facts", {
      token,
      raw: '{"content":"proto","__proto__":{"admin":true}}',
    });
    await expectProblem(res, 422, "validation_failed");
  });
});

describe("hostile input never gives a 500", () => {
  test("content with NUL bytes, emoji and bidi controls round-trips", async () => {
    const content = "a\u0000b 🎉👩‍👩‍👧 \u202e reversed \u0007 \r\n end";
    const created = await h.json("POST", "/memory/facts", {
      token,
      body: { content, tags: ["🎉", "tab\tbed"] },
    });
    expect(created.status).toBe(201);
    expect(created.body.content).toBe(content);
    const read = await h.json("GET", `/memory/facts/${created.body.id}`, { token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    const search = await h.json("POST", "/memory/search", { token, body: { query: content } });
    expect(search.status).toBe(200);
    const tagged = await h.json("GET", `/memory/facts?tag=${encodeURIComponent("🎉")}`, { token });
    expect(tagged.body.items.map((e: { id: string }) => e.id)).toContain(created.body.id);
  });

  test("deeply nested data within the size limit is stored and read back", async () => {
    let nested = "1";
    for (let i = 0; i < 5000; i++) nested = `[${nested}]`;
    let objects = "true";
    for (let i = 0; i < 900; i++) objects = `{"k":${objects}}`;
    const raw = `{"content":"deep","data":{"arrays":${nested},"objects":${objects}}}`;
    expect(Buffer.byteLength(JSON.stringify(JSON.parse(raw).data))).toBeLessThan(16 * 1024);
    const created = await h.json("POST", "/memory/facts", {
      token,
      raw,
      headers: { "content-type": "application/json" },
    });
    expect(created.status).toBe(201);
    const read = await h.json("GET", `/memory/facts/${created.body.id}`, { token });
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.body.data)).toBe(JSON.stringify(JSON.parse(raw).data));
  });

  // A `__proto__` key cannot round-trip through JSON objects safely, so it is refused wherever it is
  // in `data` (actors/tenant/memory/entry-builder.ts); `constructor` and `prototype` are ordinary keys.
  test("a __proto__ key in data → 422 naming /data/__proto__, nothing written, nothing polluted", async () => {
    const t = await h.createTenant();
    const raw =
      '{"content":"proto data","data":{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}}}}';
    const problem = await expectProblem(
      await h.call("POST", "/memory/facts", { token: t.token, raw }),
      422,
      "validation_failed",
    );
    expect(problem.errors).toEqual([{ path: "/data/__proto__", message: "key not allowed" }]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await h.json("GET", "/memory/facts", { token: t.token })).body.items).toEqual([]);
  });

  test("a nested __proto__ key and one differing only in its value are refused alike", async () => {
    for (const v of [1, 2]) {
      const raw = `{"content":"proto identity","valid_from":"2025-01-01T00:00:00Z","data":{"a":[{"__proto__":{"v":${v}}}]}}`;
      const problem = await expectProblem(
        await h.call("POST", "/memory/facts", { token, raw }),
        422,
        "validation_failed",
      );
      expect(problem.errors).toEqual([{ path: "/data/a/0/__proto__", message: "key not allowed" }]);
    }
  });

  test("constructor and prototype keys in data are data: stored, read back exactly, a repeat is the same entry", async () => {
    const t = await h.createTenant();
    const raw =
      '{"content":"ctor data","valid_from":"2025-01-01T00:00:00Z","data":{"constructor":{"prototype":{"x":1}},"prototype":[1]}}';
    const created = await h.json("POST", "/memory/facts", { token: t.token, raw });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ constructor: { prototype: { x: 1 } }, prototype: [1] });
    const read = await h.json("GET", `/memory/facts/${created.body.id}`, { token: t.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    const again = await h.json("POST", "/memory/facts", { token: t.token, raw });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(created.body.id);
  });

  // A lone surrogate cannot be stored and read back as sent, so text must be well-formed UTF-16.
  test("a lone surrogate in content, a tag or a data key → 422 naming it, nothing written", async () => {
    const t = await h.createTenant();
    const cases: Array<[string, string]> = [
      ['{"content":"broken \\ud800 half","valid_from":"2025-01-01T00:00:00Z"}', "/content"],
      ['{"content":"ok","tags":["fine","\\udc00"]}', "/tags/1"],
      ['{"content":"ok","data":{"v":"\\ud83d"}}', "/data/v"],
    ];
    for (const [raw, path] of cases) {
      const problem = await expectProblem(
        await h.call("POST", "/memory/facts", { token: t.token, raw }),
        422,
        "validation_failed",
      );
      expect({ raw, errors: problem.errors }).toEqual({
        raw,
        errors: [{ path, message: "text has a lone surrogate" }],
      });
    }
    expect((await h.json("GET", "/memory/facts", { token: t.token })).body.items).toEqual([]);
  });

  // Elysia's validation error builds its summary with `${value}`: an object whose own `toString` is
  // not a function makes that throw a TypeError, which surfaces as a 500.
  const primitiveless: Array<[Category, string, Record<string, unknown>]> = [
    ["fact", "content", { content: { toString: "x" } }],
    ["fact", "tags[0]", { content: "x", tags: [{ toString: 1 }] }],
    ["fact", "valid_from", { content: "x", valid_from: { toString: "2026-01-01T00:00:00Z" } }],
    ["decision", "status", { content: "x", status: { toString: "open" } }],
    ["relationship", "subject", { content: "x", subject: { toString: "s" }, predicate: "p", object: "o" }],
  ];
  for (const [category, field, body] of primitiveless) {
    test(`${category}: ${field} an object with a non-callable toString → 422, not 500`, async () => {
      const res = await h.call("POST", `/memory/${PLURAL_OF[category]}`, { token, body });
      await expectProblem(res, 422, "validation_failed");
    });
  }

  test("a battery of odd bodies: each gets its one determined answer", async () => {
    const t = await h.createTenant();
    const target = await h.json("POST", "/memory/facts", { token: t.token, body: { content: "to correct" } });
    expect(target.status).toBe(201);
    // [body, status, code (for errors), first error path (for 422s)]
    const battery: Array<[unknown, number, string?, string?]> = [
      [{ content: "x", tags: Array(10_000).fill("a") }, 422, "validation_failed", "/tags"],
      [{ content: "x", data: { a: Array(3000).fill(null) } }, 201],
      [{ content: "x", valid_from: "9999-12-31T23:59:59.999Z" }, 201],
      [{ content: "x", valid_from: "0000-01-01T00:00:00Z" }, 201],
      [{ content: "x", valid_from: "2026-01-01T00:00:00.123456789+14:00" }, 201],
      [{ content: "x", valid_from: "2026-01-01T00:00:00+99:99" }, 422, "validation_failed", "/valid_from"],
      [{ content: "x", valid_from: "x".repeat(10_000) }, 422, "validation_failed", "/valid_from"],
      [{ content: "x", supersedes: "00000000" }, 422, "validation_failed", "/supersedes"],
      [{ content: "x", corrects: target.body.id }, 201],
      [{ content: "x", agent_id: "a".repeat(129) }, 422, "validation_failed", "/agent_id"],
      [{ content: "x", tenant_id: "../../etc/passwd" }, 403, "forbidden"],
      [{ content: "x", embedding: [Number.MAX_VALUE] }, 422, "validation_failed", "/embedding"],
      [{ content: ["x"] }, 422, "validation_failed", "/content"],
      [{ content: { text: "x" } }, 422, "validation_failed", "/content"],
      [{ content: "x", data: { n: 1e308, m: -0, s: "\u0000" } }, 201],
    ];
    for (const [body, status, code, path] of battery) {
      const label = JSON.stringify(body).slice(0, 80);
      const res = await h.call("POST", "/memory/facts", { token: t.token, body });
      if (code === undefined) {
        expect({ label, status: res.status }).toEqual({ label, status });
        await res.text();
        continue;
      }
      const problem = await expectProblem(res, status, code);
      expect({ label, path: problem.errors?.[0]?.path }).toEqual({ label, path });
    }
  });
});

describe("path and query parameters", () => {
  for (const bad of [
    "ABCDEF12",
    "1234567",
    "123456789",
    "zzzzzzzz",
    "%00%00%00%00",
    "12345678%20",
    "-1234567",
  ]) {
    test(`GET /memory/facts/${bad} → 422`, async () => {
      await expectProblem(await h.call("GET", `/memory/facts/${bad}`, { token }), 422, "validation_failed");
    });
  }

  const badQueries = [
    "limit=0",
    "limit=501",
    "limit=abc",
    "limit=-1",
    "limit=1.5",
    "limit=",
    "limit=1e3",
    "valid_at=yesterday",
    "valid_at=2026-13-40T00:00:00Z",
    "valid_at=2026-01-01",
    "as_of=not-a-time",
    "as_of=2026-01-01T00:00:00",
    "cursor=garbage",
    "cursor=%25%25%25",
    `cursor=${Buffer.from('{"s":"x"}').toString("base64url")}`,
    `cursor=${"A".repeat(200)}`,
    `tag=${"t".repeat(65)}`,
    "include=everything",
  ];
  for (const q of badQueries) {
    test(`GET /memory/facts?${q.slice(0, 40)} → 422`, async () => {
      await expectProblem(await h.call("GET", `/memory/facts?${q}`, { token }), 422, "validation_failed");
    });
  }

  for (const q of [
    "limit=1",
    "limit=500",
    // Exponent notation is an integer like any other once read (100).
    "limit=1e2",
    "valid_at=2026-01-01T00:00:00Z",
    "as_of=2026-01-01T00:00:00%2B02:00",
  ]) {
    test(`GET /memory/facts?${q} → 200`, async () => {
      expect((await h.call("GET", `/memory/facts?${q}`, { token })).status).toBe(200);
    });
  }
});
