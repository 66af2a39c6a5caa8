/**
 * Requests aimed past the document's operations: signed webhook deliveries (signed at send time, as
 * each platform would, so the bytes reach the parsers and mappings), paths no route has, and raw
 * HTTP/1.1 requests with bytes fetch would refuse to send (NUL and obs-text in headers, bad framing,
 * broken request lines).
 */
import fc from "fast-check";
import { HOSTILE_SEGMENTS, type HostileBody, WRONG_CONTENT_TYPES } from "./corpus.ts";
import { credentialArb } from "./operation-requests.ts";
import { bytesOf, type FuzzRequest, type Pools } from "./request.ts";

/** Keys webhook payloads of the sources use, so that random objects sometimes look like events. */
const EVENT_KEYS = [
  "type",
  "event",
  "event_type",
  "eventType",
  "id",
  "eventId",
  "event_id",
  "subscriptionType",
  "objectId",
  "occurredAt",
  "data",
  "object",
  "payload",
  "message",
  "value",
  "run",
  "job",
  "alert",
  "model_name",
  "version",
  "event_timestamp",
  "created",
  "action",
  "resource",
  "changeType",
];

function eventLikeArb(): fc.Arbitrary<unknown> {
  const leaf = fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean(), fc.constant(null));
  const { tree } = fc.letrec((tie) => ({
    tree: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      leaf,
      fc.dictionary(fc.constantFrom(...EVENT_KEYS), tie("tree"), { maxKeys: 6 }),
      fc.array(tie("tree"), { maxLength: 3 }),
    ),
  }));
  return fc.oneof(tree, fc.array(tree, { minLength: 1, maxLength: 3 }));
}

export function signedWebhookArb(pools: Pools, bodies: HostileBody[]): fc.Arbitrary<FuzzRequest> {
  const body = fc.oneof(
    { weight: 4, arbitrary: eventLikeArb().map((v) => bytesOf(JSON.stringify(v))) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => bytesOf(JSON.stringify(v) ?? "null")) },
    { weight: 3, arbitrary: fc.constantFrom(...bodies).map((b) => b.bytes) },
  );
  return fc
    .record({
      source: fc.constantFrom(...pools.signedSources),
      tenant: fc.constantFrom(...pools.webhookTenants),
      body,
      contentType: fc.option(fc.constantFrom(...WRONG_CONTENT_TYPES), { nil: undefined, freq: 5 }),
    })
    .map(
      (r): FuzzRequest => ({
        kind: "webhook",
        operation: "POST /webhooks/{source}/{tenant_id}",
        method: "POST",
        path: `/webhooks/${r.source}/${r.tenant}`,
        headers: r.contentType ? { "content-type": r.contentType } : {},
        body: r.body,
        credential: `signed:${r.source}`,
        signFor: r.source,
      }),
    );
}

const UNROUTED_PATHS = [
  "/",
  "/admin",
  "/admin/",
  "/admin/tenants/",
  "//admin//tenants",
  "/MEMORY/facts",
  "/memory/facts/",
  "/memory/fact",
  "/memory/%66acts",
  "/memory/facts/..%2f..%2fadmin%2ftenants",
  "/%2e%2e/%2e%2e/etc/passwd",
  "/memory/../admin/tenants",
  "/openapi/json/..",
  "/openapi/json%00",
  "/healthz;x=1",
  "/healthz%20",
  "/webhooks",
  "/webhooks/crm",
  "/.env",
  "/.git/config",
  "/node_modules/elysia/package.json",
  "/src/index.ts",
  "/server-status",
  `/${"a/".repeat(2_000)}`,
];

export function unroutedArb(pools: Pools): fc.Arbitrary<FuzzRequest> {
  const path = fc.oneof(
    fc.constantFrom(...UNROUTED_PATHS),
    fc.constantFrom(...HOSTILE_SEGMENTS).map((s) => `/${s}`),
    fc.webPath(),
  );
  return fc
    .record({
      path,
      method: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"),
      credential: credentialArb(pools, "hostile"),
    })
    .map(
      (r): FuzzRequest => ({
        kind: "unrouted",
        operation: "(no route)",
        method: r.method,
        path: r.path.startsWith("/") ? r.path : `/${r.path}`,
        headers: r.credential?.authorization ? { authorization: r.credential.authorization } : {},
        credential: r.credential?.name ?? "none",
      }),
    );
}

/** The framing and header cases of raw requests (latin1 text: every byte 0–255 is one character). */
const RAW_CASES: Array<{ name: string; line?: string; head: string; body?: string }> = [
  { name: "nul in header", head: "X-Request-Id: a\u0000b\r\n" },
  { name: "nul in authorization", head: "Authorization: Bearer \u0000\u0000\r\n" },
  { name: "obs-text authorization", head: "Authorization: Bearer \u00ff\u00fe\u0080.\u00e9.x\r\n" },
  { name: "obs-text content-type", head: "Content-Type: application/json; charset=\u00ff\r\n", body: "{}" },
  {
    name: "obs-text idempotency key",
    head: "Idempotency-Key: \u00c3\u00a9\u0080\r\n",
    body: '{"content":"x"}',
  },
  { name: "header without colon", head: "NoColonHere\r\n" },
  { name: "space in header name", head: "Bad Header: x\r\n" },
  { name: "obsolete line folding", head: "X-A: a\r\n  folded\r\n" },
  { name: "duplicate content-length", head: "Content-Length: 2\r\nContent-Length: 3\r\n", body: "{}" },
  { name: "negative content-length", head: "Content-Length: -1\r\n", body: "{}" },
  { name: "huge content-length", head: "Content-Length: 99999999999999999999\r\n", body: "{}" },
  { name: "short content-length", head: "Content-Length: 1\r\n", body: '{"content":"x"}' },
  { name: "bad chunk size", head: "Transfer-Encoding: chunked\r\n", body: "zz\r\nabc\r\n0\r\n\r\n" },
  {
    name: "chunked and length",
    head: "Transfer-Encoding: chunked\r\nContent-Length: 4\r\n",
    body: "0\r\n\r\n",
  },
  { name: "unknown transfer-encoding", head: "Transfer-Encoding: gzip, chunked, x\r\n", body: "0\r\n\r\n" },
  { name: "expect continue", head: "Expect: 100-continue\r\nContent-Length: 2\r\n", body: "{}" },
  { name: "nul in path", line: "GET /healthz\u0000 HTTP/1.1", head: "" },
  { name: "space in path", line: "GET /a b HTTP/1.1", head: "" },
  { name: "asterisk target", line: "GET * HTTP/1.1", head: "" },
  { name: "absolute target", line: "GET http://evil.example/healthz HTTP/1.1", head: "" },
  { name: "relative target", line: "GET healthz HTTP/1.1", head: "" },
  { name: "lower-case method", line: "get /healthz HTTP/1.1", head: "" },
  { name: "unknown method", line: "BREW /healthz HTTP/1.1", head: "" },
  { name: "unknown version", line: "GET /healthz HTTP/9.9", head: "" },
  { name: "http/1.0", line: "GET /healthz HTTP/1.0", head: "" },
  { name: "bare lf", line: "GET /healthz HTTP/1.1\nX-A: b", head: "" },
];

export function rawArb(pools: Pools, targets: string[]): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      target: fc.constantFrom(...targets),
      method: fc.constantFrom("GET", "POST", "DELETE"),
      raw: fc.constantFrom(...RAW_CASES),
      credential: credentialArb(pools, "schema"),
      host: fc.boolean(),
    })
    .map((r) => {
      const line = r.raw.line ?? `${r.method} ${r.target} HTTP/1.1`;
      const auth = r.credential?.authorization ? `Authorization: ${r.credential.authorization}\r\n` : "";
      const host = r.host ? "Host: 127.0.0.1\r\n" : "";
      const hasLength = /content-length|transfer-encoding/i.test(r.raw.head);
      const body = r.raw.body ?? "";
      const length =
        body && !hasLength ? `Content-Length: ${body.length}\r\nContent-Type: application/json\r\n` : "";
      const text = `${line}\r\n${host}${auth}${r.raw.head}${length}Connection: close\r\n\r\n${body}`;
      return {
        kind: "raw" as const,
        operation: `(raw) ${r.raw.name}`,
        method: r.method,
        path: r.target,
        headers: {},
        credential: r.credential?.name ?? "none",
        raw: Uint8Array.from(text, (c) => c.charCodeAt(0) & 0xff),
      };
    });
}
