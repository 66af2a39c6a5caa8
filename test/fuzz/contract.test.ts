/**
 * The contract checks' own machinery, against the app's real document (in process, no server): the
 * generator makes requests the document allows for every operation, each mutation makes one it
 * forbids, parameters are read as the wire carries them, `$ref`s are followed, and an exception
 * explains only what it names.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { seededRandom, testSeed } from "../helpers/random.ts";
import { explain, windowRulesDocumented } from "./contract-exceptions.ts";
import { type RequestModel, validity, wireValue } from "./contract-model.ts";
import { type ContractPools, positiveArb } from "./contract-requests.ts";
import { resolverOf, validatorOf } from "./doc-schemas.ts";
import { mutate, pinnedMutations } from "./mutations.ts";
import { type Operation, operationsOf } from "./operations.ts";

type Json = Record<string, unknown>;

let h: Harness;
let doc: Json;
let ops: Operation[];

const TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
const pools = {
  credentials: [],
  validCredentials: [],
  adminCredentials: [{ name: "admin", authorization: "Bearer a" }],
  tenantCredentials: [{ name: "owner", authorization: "Bearer t" }],
  tenantIds: [TENANT],
  victimIds: [TENANT],
  webhookTenants: [TENANT],
  entryIds: ["0123abcd", "00000000"],
  ownEntryIds: ["0123abcd"],
  eventIds: ["event-1"],
  roleNames: ["reader"],
  subscriptionIds: ["sub_01JDB2X6J3KQ5W8Z3M4N7P9R2S"],
  sourceIds: ["data"],
  signedSources: ["data"],
  loopbackUrls: ["http://127.0.0.1:9/hook"],
  cursors: {},
  exportBody: '{"type":"header"}\n',
  adminToken: "a",
} satisfies ContractPools;

beforeAll(async () => {
  h = await startHarness();
  doc = (await h.json("GET", "/openapi/json")).body;
  ops = operationsOf(doc);
});

afterAll(async () => {
  await h.close();
});

describe("generated requests", () => {
  test("for every operation, valid ones, and a mutation of each is one the document forbids", () => {
    const seed = testSeed();
    const ctx = { pools, resolve: resolverOf(doc) };
    const validator = validatorOf(doc);
    const random = seededRandom(seed);
    const summary: Record<string, { valid: number; mutated: number; stillValid: number }> = {};
    for (const op of ops) {
      const row = { valid: 0, mutated: 0, stillValid: 0 };
      for (const model of fc.sample(positiveArb(op, ctx), { seed, numRuns: 30 })) {
        if (validity(op, model, validator) !== undefined) continue;
        row.valid++;
        const mutation = mutate(op, model, validator, ctx.resolve, random);
        if (!mutation) continue;
        row.mutated++;
        if (validity(op, mutation.model, validator) === undefined) row.stillValid++;
      }
      summary[op.key] = row;
    }
    for (const [key, row] of Object.entries(summary)) {
      // Most generated values are valid (Ajv drops the rest), and no mutation leaves one valid.
      expect({ seed, key, enough: row.valid >= 15, stillValid: row.stillValid }).toEqual({
        seed,
        key,
        enough: true,
        stillValid: 0,
      });
    }
    expect(Object.values(summary).filter((r) => r.mutated > 0).length).toBeGreaterThan(ops.length / 2);
  });

  test("the pinned mutations: a `null` body, and `embedding` on a write under `hash`, both forbidden", () => {
    const ctx = { pools, resolve: resolverOf(doc) };
    const validator = validatorOf(doc);
    const pinnedOf = (key: string) => {
      const o = ops.find((x) => x.key === key)!;
      const valid = fc
        .sample(positiveArb(o, ctx), { seed: 7, numRuns: 40 })
        .find((m) => m.body !== undefined && validity(o, m, validator) === undefined)!;
      return pinnedMutations(o, valid, validator, ctx.resolve).map((m) => {
        expect(validity(o, m.model, validator)).toBe("body invalid");
        return { target: m.target, value: m.model.body?.value === null ? null : "object" };
      });
    };
    expect(pinnedOf("POST /admin/webhooks/replay/{tenant_id}")).toEqual([{ target: "body /", value: null }]);
    expect(pinnedOf("POST /admin/webhooks/discard/{tenant_id}")).toEqual([{ target: "body /", value: null }]);
    expect(pinnedOf("POST /memory/facts")).toEqual([
      { target: "body /", value: null },
      { target: "body /embedding", value: "object" },
    ]);
    expect(pinnedOf("POST /memory/facts/batch").map((m) => m.target)).toEqual([
      "body /",
      "body /entries/0/embedding",
    ]);
  });

  test("unknown query parameters are sent now and then (the service ignores them)", () => {
    const op = ops.find((o) => o.key === "GET /memory/facts")!;
    const samples = fc.sample(positiveArb(op, { pools, resolve: resolverOf(doc) }), { seed: 1, numRuns: 40 });
    expect(samples.some((m) => m.query.x_fuzz_unknown === "1")).toBe(true);
    expect(samples.some((m) => m.query.x_fuzz_unknown === undefined)).toBe(true);
  });
});

describe("parameters as the wire carries them", () => {
  const integer = { type: "integer", minimum: 1, maximum: 500 };
  test("a number's text is the number; anything else stays text", () => {
    expect(wireValue(integer, 20)).toBe(20);
    expect(wireValue(integer, "1e2")).toBe(100);
    expect(wireValue(integer, "abc")).toBe("abc");
    expect(wireValue(integer, "")).toBe("");
    expect(wireValue({ type: "string" }, 12)).toBe("12");
    expect(wireValue({ type: "boolean" }, "true")).toBe(true);
  });

  test("limit=abc breaks the document, limit=20 does not", () => {
    const op = ops.find((o) => o.key === "GET /memory/facts")!;
    const validator = validatorOf(doc);
    const model = (limit: unknown): RequestModel => ({ path: {}, query: { limit }, header: {} });
    expect(validity(op, model("20"), validator)).toBeUndefined();
    expect(validity(op, model("abc"), validator)).toBe("query limit invalid");
    expect(validity(op, model("501"), validator)).toBe("query limit invalid");
  });
});

describe("$ref", () => {
  test("followed, its sibling keywords kept; an unknown one throws", () => {
    const resolve = resolverOf({ components: { schemas: { A: { type: "string", maxLength: 3 } } } });
    expect(resolve({ $ref: "#/components/schemas/A", description: "d" })).toEqual({
      type: "string",
      maxLength: 3,
      description: "d",
    });
    expect(() => resolve({ $ref: "#/components/schemas/B" })).toThrow("unresolved");
  });
});

describe("exceptions explain only what they name", () => {
  const op = (key: string) => ops.find((o) => o.key === key)!;
  const model: RequestModel = { path: {}, query: {}, header: {} };
  const problem = (path: string, detail: string) =>
    JSON.stringify({ code: "validation_failed", detail, errors: [{ path, message: detail }] });

  test("an embedding refused on a write is not an exception: the document refuses the field", () => {
    const write = op("POST /memory/facts");
    const embedding = problem("/embedding", "`embedding` is accepted only when the embedder is `client`");
    expect(explain({ check: "positive", op: write, model, status: 422, body: embedding })).toBeUndefined();
    const schema = resolverOf(doc)(write.body!.schema);
    expect((schema.properties as Json).embedding).toMatchObject({ not: {} });
  });

  test("a window out of order is explained only where the operation's `from` says so", () => {
    const outOfOrder = problem("/from", "must not be after to");
    const windowed = [
      "GET /admin/webhooks/deliveries/{tenant_id}",
      "POST /admin/webhooks/replay/{tenant_id}",
      "POST /admin/webhooks/discard/{tenant_id}",
      "GET /admin/metrics/revenue-per-agent/{tenant_id}",
      "GET /admin/metrics/stats/{tenant_id}",
    ];
    for (const key of windowed) {
      expect({ key, documented: windowRulesDocumented(op(key)) }).toEqual({ key, documented: true });
      const o = { check: "positive" as const, op: op(key), model, status: 422, body: outOfOrder };
      expect({ key, explained: explain(o) }).toEqual({ key, explained: expect.any(String) });
    }
    // The same operation with the sentence taken out of its description: no longer explained.
    const deliveries = structuredClone(op(windowed[0]!));
    const from = deliveries.params.find((p) => p.name === "from")!;
    from.schema = { ...from.schema, description: "RFC 3339 timestamp" };
    expect(windowRulesDocumented(deliveries)).toBe(false);
    expect(
      explain({ check: "positive", op: deliveries, model, status: 422, body: outOfOrder }),
    ).toBeUndefined();
  });

  test("a 400 is explained on the webhook route only", () => {
    const body = JSON.stringify({ code: "bad_request", detail: "event 0 is not an object" });
    expect(
      explain({ check: "positive", op: op("POST /webhooks/{source}/{tenant_id}"), model, status: 400, body }),
    ).toBeDefined();
    expect(
      explain({ check: "positive", op: op("POST /memory/search"), model, status: 400, body }),
    ).toBeUndefined();
  });
});
