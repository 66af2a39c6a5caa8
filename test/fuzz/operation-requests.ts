/**
 * Requests aimed at the operations of the OpenAPI document. `schema` mode mostly sends what the
 * route's schemas accept (with known ids and valid tokens, so handlers run), with some values
 * swapped for hostile ones; `hostile` mode sends the hostile corpus's paths, bodies, content types
 * and headers to the same operations.
 */
import fc from "fast-check";
import {
  HOSTILE_JSON_VALUES,
  HOSTILE_QUERY_TAILS,
  HOSTILE_QUERY_VALUES,
  HOSTILE_SEGMENTS,
  type HostileBody,
  hostileHeaders,
  WRONG_CONTENT_TYPES,
} from "./corpus.ts";
import { fillPath, isDestructive, type Operation, type Parameter } from "./operations.ts";
import { bytesOf, encodeSegment, type FuzzRequest, headerSafe, type Pools } from "./request.ts";
import { arbitraryOf, type Overrides } from "./schema-arbitrary.ts";
import type { Credential } from "./tokens.ts";

export type Mode = "schema" | "hostile";

const OTHER_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"];
const HOLE = "__FUZZ_HOLE__";

/**
 * The credential of a request: in `schema` mode mostly one that fits the operation (the operator's
 * for an admin route, a fixture tenant's for the others), so that handlers run; else any.
 */
export function credentialArb(
  pools: Pools,
  mode: Mode,
  op?: Operation,
): fc.Arbitrary<Credential | undefined> {
  const fitting = op?.template.startsWith("/admin/") ? pools.adminCredentials : pools.tenantCredentials;
  return fc.oneof(
    { weight: mode === "schema" && op ? 12 : 0, arbitrary: fc.constantFrom(...fitting) },
    { weight: mode === "schema" ? 2 : 3, arbitrary: fc.constantFrom(...pools.validCredentials) },
    { weight: mode === "schema" ? 2 : 3, arbitrary: fc.constantFrom(...pools.credentials) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

/** Known values of a path or body field, by its name. */
function knownValues(name: string, pools: Pools, destructive: boolean): string[] | undefined {
  switch (name) {
    case "tenant_id":
      return destructive ? pools.victimIds : pools.tenantIds;
    case "sha8":
    case "decision_id":
    case "supersedes":
    case "corrects":
      return pools.entryIds;
    case "event_id":
      return pools.eventIds;
    case "source":
      return pools.sourceIds;
    case "role_name":
      return pools.roleNames;
    case "subscription_id":
      return pools.subscriptionIds;
    default:
      return undefined;
  }
}

function segmentArb(p: Parameter, pools: Pools, mode: Mode, destructive: boolean): fc.Arbitrary<string> {
  const known = knownValues(p.name, pools, destructive);
  const plain = known ? fc.constantFrom(...known) : arbitraryOf(p.schema).map(String);
  const hostile = destructive ? 0 : mode === "schema" ? 1 : 6;
  return fc.oneof(
    { weight: 8, arbitrary: plain.map(encodeSegment) },
    { weight: hostile, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS) },
    {
      weight: destructive ? 0 : 1,
      arbitrary: fc.string({ unit: "binary", maxLength: 40 }).map(encodeSegment),
    },
  );
}

function queryArb(op: Operation, pools: Pools, mode: Mode): fc.Arbitrary<string> {
  const params = op.params.filter((p) => p.in === "query");
  const hostile = mode === "schema" ? 1 : 6;
  const pairs = params.map((p) => {
    const known = knownValues(p.name, pools, false);
    const plain = known ? fc.constantFrom(...known) : arbitraryOf(p.schema).map(String);
    const value = fc.oneof(
      { weight: 12, arbitrary: plain.map(encodeSegment) },
      { weight: hostile, arbitrary: fc.constantFrom(...HOSTILE_QUERY_VALUES) },
    );
    // Each optional parameter is sent one time in three.
    return fc.oneof(
      { weight: 2, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: value.map((v) => `${p.name}=${v}`) },
    );
  });
  const tail = fc.option(fc.constantFrom(...HOSTILE_QUERY_TAILS), {
    nil: undefined,
    freq: mode === "schema" ? 20 : 3,
  });
  return fc.tuple(fc.tuple(...pairs), tail).map(([given, extra]) => {
    const parts = [...given, extra].filter((x): x is string => x !== undefined);
    return parts.length > 0 ? `?${parts.join("&")}` : "";
  });
}

function headerParamsArb(op: Operation, mode: Mode): fc.Arbitrary<Record<string, string>> {
  const params = op.params.filter((p) => p.in === "header");
  const model: Record<string, fc.Arbitrary<string>> = {};
  for (const p of params) {
    model[p.name] = fc.oneof(
      { weight: 4, arbitrary: arbitraryOf(p.schema).map((v) => headerSafe(String(v))) },
      {
        weight: mode === "schema" ? 1 : 4,
        arbitrary: fc.constantFrom(...HOSTILE_QUERY_VALUES).map(headerSafe),
      },
    );
  }
  return fc.record(model, { requiredKeys: [] }) as fc.Arbitrary<Record<string, string>>;
}

/** Body fields whose values must come from the pools (URLs stay on loopback; ids exist). */
function overridesOf(pools: Pools): Overrides {
  const known = (values: string[]) => fc.oneof(fc.constantFrom(...values), fc.string({ maxLength: 30 }));
  return {
    url: fc.constantFrom(...pools.loopbackUrls),
    tenant_id: known(pools.tenantIds),
    decision_id: known(pools.entryIds),
    supersedes: known(pools.entryIds),
    corrects: known(pools.entryIds),
    roles: fc.uniqueArray(fc.constantFrom(...pools.roleNames), { minLength: 1, maxLength: 3 }),
    token: fc
      .constantFrom(...pools.credentials, ...pools.validCredentials)
      .map((c) => c.authorization?.replace(/^Bearer /, "") ?? ""),
    // JSON-RPC (POST /mcp): the MCP methods and tool calls, with arguments of any shape.
    method: fc.oneof(fc.constantFrom(...MCP_METHODS), fc.string({ maxLength: 20 })),
    params: mcpParamsArb(pools),
  };
}

const MCP_METHODS = [
  "initialize",
  "tools/list",
  "tools/call",
  "ping",
  "notifications/initialized",
  "resources/list",
];
const MCP_TOOLS = [
  "memory_add",
  "memory_search",
  "memory_get",
  "memory_list",
  "outcome_record",
  "memory_retract",
  "memory_history",
];

function mcpParamsArb(pools: Pools): fc.Arbitrary<unknown> {
  const args = fc.record(
    {
      category: fc.constantFrom("decision", "fact", "outcome", "nope", "__proto__"),
      content: fc.string({ maxLength: 40 }),
      query: fc.string({ maxLength: 40 }),
      id: fc.constantFrom(...pools.entryIds),
      decision_id: fc.constantFrom(...pools.entryIds),
      result: fc.constantFrom("success", "failure", "maybe"),
      limit: fc.integer({ min: -1, max: 600 }),
      tenant_id: fc.constantFrom(...pools.tenantIds),
    },
    { requiredKeys: [] },
  );
  return fc.oneof(
    fc.record({
      name: fc.constantFrom(...MCP_TOOLS, "no_such_tool"),
      arguments: fc.oneof(args, fc.jsonValue({ maxDepth: 2 })),
    }),
    fc.constant({
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "fuzz", version: "1" },
    }),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  );
}

/** A JSON text of a value the schema accepts, with one field made hostile in one of four ways. */
function mutate(valid: unknown, hostile: string, pick: number, how: number): string {
  if (typeof valid !== "object" || valid === null || Array.isArray(valid)) return hostile;
  const record = valid as Record<string, unknown>;
  const keys = Object.keys(record);
  const key = keys.length > 0 ? keys[pick % keys.length]! : "content";
  const rest = JSON.stringify(record).slice(1);
  const joined = (head: string) => `{${head}${rest === "}" ? "}" : `,${rest}`}`;
  switch (how % 4) {
    case 0:
      return JSON.stringify({ ...record, [key]: HOLE }).replace(`"${HOLE}"`, hostile);
    case 1: // a duplicate key: the hostile value first (the valid one wins in JSON.parse)...
      return joined(`"${key}":${hostile}`);
    case 2: // ...or last (the hostile one wins)
      return `${JSON.stringify(record).slice(0, -1)}${keys.length > 0 ? "," : ""}"${key}":${hostile}}`;
    default:
      return joined(`"__proto__":${hostile}`);
  }
}

function jsonBodyArb(op: Operation, pools: Pools, mode: Mode, bodies: HostileBody[]) {
  const valid = arbitraryOf(op.body!.schema, overridesOf(pools));
  return fc.oneof(
    { weight: mode === "schema" ? 6 : 0, arbitrary: valid.map((v) => bytesOf(JSON.stringify(v) ?? "null")) },
    {
      weight: mode === "schema" ? 3 : 4,
      arbitrary: fc
        .tuple(valid, fc.constantFrom(...HOSTILE_JSON_VALUES), fc.nat(), fc.nat())
        .map(([v, h, pick, how]) => bytesOf(mutate(v, h, pick, how))),
    },
    { weight: mode === "schema" ? 1 : 6, arbitrary: fc.constantFrom(...bodies).map((b) => b.bytes) },
  );
}

function formBodyArb(op: Operation, pools: Pools, bodies: HostileBody[]) {
  const valid = arbitraryOf(op.body!.schema, overridesOf(pools)).map((v) => {
    const form = new URLSearchParams();
    if (typeof v === "object" && v !== null)
      for (const [k, x] of Object.entries(v)) form.append(k, String(x));
    return bytesOf(form.toString());
  });
  return fc.oneof(
    { weight: 3, arbitrary: valid },
    { weight: 1, arbitrary: fc.constantFrom(...bodies).map((b) => b.bytes) },
  );
}

function ndjsonBodyArb(bodies: HostileBody[]) {
  const line = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    fc.constantFrom(...HOSTILE_JSON_VALUES),
    fc.constant('{"kind":"entry","entry":{"category":"fact","content":"x"}}'),
  );
  return fc.oneof(
    { weight: 3, arbitrary: fc.array(line, { maxLength: 6 }).map((lines) => bytesOf(lines.join("\n"))) },
    { weight: 1, arbitrary: fc.constantFrom(...bodies).map((b) => b.bytes) },
  );
}

function bodyArb(op: Operation, pools: Pools, mode: Mode, bodies: HostileBody[]) {
  const type = op.body?.contentTypes[0];
  if (!type)
    return fc.option(
      fc.constantFrom(...bodies).map((b) => b.bytes),
      { nil: undefined, freq: 6 },
    );
  if (type.includes("form-urlencoded")) return formBodyArb(op, pools, bodies);
  if (type.includes("ndjson")) return ndjsonBodyArb(bodies);
  return jsonBodyArb(op, pools, mode, bodies);
}

function contentTypeArb(op: Operation, mode: Mode): fc.Arbitrary<string | undefined> {
  const declared = op.body?.contentTypes ?? ["application/json"];
  return fc.oneof(
    { weight: mode === "schema" ? 12 : 3, arbitrary: fc.constantFrom(...declared) },
    { weight: 2, arbitrary: fc.constantFrom(...WRONG_CONTENT_TYPES) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

export function operationRequestArb(
  op: Operation,
  pools: Pools,
  mode: Mode,
  bodies: HostileBody[],
): fc.Arbitrary<FuzzRequest> {
  const destructive = isDestructive(op);
  const segments: Record<string, fc.Arbitrary<string>> = {};
  for (const p of op.params.filter((x) => x.in === "path"))
    segments[p.name] = segmentArb(p, pools, mode, destructive);
  const extraHeaders = fc.option(fc.constantFrom(...hostileHeaders()), {
    nil: undefined,
    freq: mode === "schema" ? 25 : 3,
  });
  const method = fc.oneof(
    { weight: mode === "schema" ? 30 : 8, arbitrary: fc.constant(op.method) },
    { weight: 1, arbitrary: fc.constantFrom(...OTHER_METHODS) },
  );
  return fc
    .record({
      segments: fc.record(segments),
      query: queryArb(op, pools, mode),
      params: headerParamsArb(op, mode),
      credential: credentialArb(pools, mode, op),
      body: bodyArb(op, pools, mode, bodies),
      contentType: contentTypeArb(op, mode),
      extra: extraHeaders,
      method,
    })
    .map((r) => {
      // MCP's streamable HTTP transport needs both media types accepted (else 406).
      const accept: Record<string, string> =
        op.template === "/mcp" && mode === "schema" ? { accept: "application/json, text/event-stream" } : {};
      const headers: Record<string, string> = { ...accept, ...r.params, ...r.extra };
      if (r.credential?.authorization !== undefined) headers.authorization = r.credential.authorization;
      if (r.credential?.cookie !== undefined) headers.cookie = `memory_admin=${r.credential.cookie}`;
      const withBody = r.body !== undefined && r.method !== "GET" && r.method !== "HEAD";
      if (withBody && r.contentType !== undefined) headers["content-type"] = r.contentType;
      return {
        kind: mode,
        operation: op.key,
        method: r.method,
        path: fillPath(op.template, r.segments) + r.query,
        headers,
        body: withBody ? r.body : undefined,
        credential: r.credential?.name ?? "none",
        exclusive: destructive,
      };
    });
}
