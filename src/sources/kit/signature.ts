/**
 * The signature toolkit of the webhook sources: pure, and unit-tested with fixed vectors.
 *
 * A platform's recipe is three choices, composed by `hmacScheme`:
 *   - where the signatures (and a timestamp, an id) are read from: one header with an optional
 *     prefix, a `t=..,v1=..` list, a separated list, or numbered headers (`signatures`);
 *   - what bytes are signed: the body, `t.body`, `v0:ts:body`, `id.ts.body`, `timestamp + body`,
 *     or the full URL followed by the sorted form parameters (`payloads`);
 *   - the HMAC: SHA-256 or SHA-1, hex or base64.
 * Several signatures in one delivery are the platforms' way to rotate secrets: any one valid
 * signature passes. Timestamps are checked on the injected clock. Every comparison of a secret or a
 * signature is constant-time (`safeEqual`), and every candidate is compared (no early exit).
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { SourceContext, VerifyResult, WebhookRequest } from "../types.ts";

export type Bytes = string | Uint8Array;
export type HashName = "sha256" | "sha1";
export type Encoding = "hex" | "base64";

// ── primitives ──────────────────────────────────────────────────────────────────────────────

/** HMAC keyed with `key` over the parts concatenated (strings as UTF-8). */
export function hmac(hash: HashName, key: Bytes, parts: readonly Bytes[]): Buffer {
  const mac = createHmac(hash, key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/** HMAC-SHA256 keyed with `key` over the parts concatenated (strings as UTF-8). */
export function hmacSha256(key: Bytes, ...parts: Bytes[]): Buffer {
  return hmac("sha256", key, parts);
}

/** Lower-case hex SHA-256 over the parts concatenated. */
export function sha256Hex(...parts: Bytes[]): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest("hex");
}

function digest(value: Bytes): Buffer {
  return createHash("sha256").update(value).digest();
}

/**
 * Constant-time equality. Both sides are hashed first so timingSafeEqual always sees equal
 * lengths: neither the content nor the length of the expected value leaks through timing.
 */
export function safeEqual(a: Bytes, b: Bytes): boolean {
  const equalDigests = timingSafeEqual(digest(a), digest(b));
  return equalDigests && byteLength(a) === byteLength(b);
}

function byteLength(value: Bytes): number {
  return typeof value === "string" ? Buffer.byteLength(value) : value.byteLength;
}

/** True when any candidate equals the expected value; every candidate is compared (no early exit). */
export function safeEqualAny(expected: Bytes, candidates: readonly Bytes[]): boolean {
  let found = false;
  for (const candidate of candidates) found = safeEqual(expected, candidate) || found;
  return found;
}

// ── what a delivery carries ─────────────────────────────────────────────────────────────────

/** The signatures of a delivery, with the timestamp and message id some recipes sign too. */
export interface Presented {
  signatures: string[];
  timestamp?: string;
  id?: string;
}

/** Reads the presented signatures from a request; undefined when there are none. */
export type SignatureReader = (req: WebhookRequest) => Presented | undefined;

/** Most platforms send a handful; more than this is not a rotation but an attempt to guess. */
const MAX_SIGNATURES = 16;

function nonBlank(values: Iterable<string>): string[] {
  const out: string[] = [];
  for (const v of values) {
    const trimmed = v.trim();
    if (trimmed && out.length < MAX_SIGNATURES) out.push(trimmed);
  }
  return out;
}

function stripPrefix(value: string, prefix: string | undefined): string | undefined {
  if (!prefix) return value;
  return value.toLowerCase().startsWith(prefix.toLowerCase()) ? value.slice(prefix.length) : undefined;
}

function present(signatures: string[], extra: Omit<Presented, "signatures"> = {}): Presented | undefined {
  return signatures.length > 0 ? { signatures, ...extra } : undefined;
}

export const signatures = {
  /**
   * One header (the first of `names` present), each value after an optional prefix (`sha256=`).
   * A header sent twice arrives joined with ", " (hex and base64 never contain a comma): each
   * part is a candidate, which is how a sender rotating its secret signs with both.
   */
  header(names: string | readonly string[], prefix?: string): SignatureReader {
    const list = typeof names === "string" ? [names] : names;
    return (req) => {
      for (const name of list) {
        const raw = req.headers.get(name)?.trim();
        if (!raw) continue;
        const values = raw.split(",").map((part) => stripPrefix(part.trim(), prefix));
        return present(nonBlank(values.filter((v): v is string => v !== undefined)));
      }
      return undefined;
    };
  },

  /**
   * `t=1700000000,v1=abc,v1=def` (Stripe, Calendly): every `v1` is a candidate, `t` the timestamp.
   * Pairs are split on `,` and on the first `=`.
   */
  keyValueList(name: string, keys: { signature: string; timestamp: string }): SignatureReader {
    return (req) => {
      const raw = req.headers.get(name);
      if (!raw) return undefined;
      const found: string[] = [];
      let timestamp: string | undefined;
      for (const pair of raw.split(",")) {
        const at = pair.indexOf("=");
        if (at < 0) continue;
        const key = pair.slice(0, at).trim();
        const value = pair.slice(at + 1).trim();
        if (key === keys.signature) found.push(value);
        else if (key === keys.timestamp) timestamp = value;
      }
      return present(nonBlank(found), { timestamp });
    };
  },

  /**
   * A header listing several signatures (`v1=abc,v1=def` split on ","; `v1,abc v1,def` split on
   * " "); each item is kept only with its version prefix, which is removed.
   */
  list(name: string, separator: string, prefix: string): SignatureReader {
    return (req) => {
      const raw = req.headers.get(name);
      if (!raw) return undefined;
      const items = raw.split(separator).map((item) => stripPrefix(item.trim(), prefix));
      return present(nonBlank(items.filter((item): item is string => item !== undefined)));
    };
  },

  /** Numbered headers `<base>1`, `<base>2`, … (DocuSign sends one per active HMAC key). */
  numbered(base: string, max = 10): SignatureReader {
    return (req) => {
      const found: string[] = [];
      for (let n = 1; n <= max; n++) {
        const value = req.headers.get(`${base}${n}`);
        if (value) found.push(value);
      }
      return present(nonBlank(found));
    };
  },

  /** Adds a timestamp and/or message id read from headers to what `inner` finds. */
  with(inner: SignatureReader, headers: { timestamp?: string; id?: string }): SignatureReader {
    return (req) => {
      const found = inner(req);
      if (!found) return undefined;
      const timestamp = headers.timestamp ? req.headers.get(headers.timestamp)?.trim() : undefined;
      const id = headers.id ? req.headers.get(headers.id)?.trim() : undefined;
      return { ...found, timestamp: timestamp || found.timestamp, id: id || found.id };
    };
  },
};

// ── what is signed ──────────────────────────────────────────────────────────────────────────

/** The bytes a recipe signs, given the request and what it presented. */
export type Payload = (req: WebhookRequest, presented: Presented) => Bytes[] | undefined;

export const payloads = {
  /** The raw body. */
  body: ((req) => [req.rawBody]) as Payload,
  /** `{timestamp}.{body}` (Stripe, Calendly). */
  timestampDotBody: ((req, p) => (p.timestamp ? [p.timestamp, ".", req.rawBody] : undefined)) as Payload,
  /** `v0:{timestamp}:{body}` (Zoom). */
  versionTimestampBody:
    (version: string): Payload =>
    (req, p) =>
      p.timestamp ? [`${version}:${p.timestamp}:`, req.rawBody] : undefined,
  /** `{id}.{timestamp}.{body}` (Standard Webhooks). */
  idTimestampBody: ((req, p) =>
    p.id && p.timestamp ? [`${p.id}.${p.timestamp}.`, req.rawBody] : undefined) as Payload,
  /** `{timestamp}{body}` (Zendesk). */
  timestampBody: ((req, p) => (p.timestamp ? [p.timestamp, req.rawBody] : undefined)) as Payload,
  /**
   * The full URL as the sender called it, then every form parameter sorted by name, each name
   * immediately followed by its value (Twilio). Repeated names keep their order.
   */
  urlAndSortedForm: ((req) => {
    const params = formParams(req.rawBody);
    if (!params) return undefined;
    const sorted = [...params].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return [calledUrl(req), ...sorted.flat()];
  }) as Payload,
};

function formParams(raw: Uint8Array): Array<[string, string]> | undefined {
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(raw);
    return [...new URLSearchParams(text)];
  } catch {
    return undefined;
  }
}

/** Scheme and host as the caller saw them: a proxy in front reports them in X-Forwarded-*. */
function forwarded(headers: Headers, name: string): string | undefined {
  return headers.get(name)?.split(",")[0]?.trim() || undefined;
}

/** The URL the sender called (scheme, host, path, query), honouring X-Forwarded-Proto/-Host. */
export function calledUrl(req: WebhookRequest): string {
  const origin = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)/.exec(req.url);
  const pathAndQuery = (origin ? req.url.slice(origin[0].length) : req.url).split("#")[0] || "/";
  const proto = forwarded(req.headers, "x-forwarded-proto") ?? origin?.[1] ?? "https";
  const host = forwarded(req.headers, "x-forwarded-host") ?? origin?.[2] ?? req.headers.get("host") ?? "";
  return `${proto.toLowerCase()}://${host}${pathAndQuery.startsWith("/") ? "" : "/"}${pathAndQuery}`;
}

// ── when it was signed ──────────────────────────────────────────────────────────────────────

export interface TimestampRule {
  /** `s` (epoch seconds), `ms` (epoch milliseconds) or `rfc3339` (`2026-11-21T10:00:00Z`). */
  unit: "s" | "ms" | "rfc3339";
  /** How far the timestamp may lie from now, either way (far-future stamps would stay replayable). */
  toleranceMs: number;
  /** Where the timestamp comes from when the signature reader does not supply it (Linear: the body). */
  read?: (req: WebhookRequest) => string | undefined;
}

/** Why a timestamp is refused, or undefined when it is inside the window. */
export function checkTimestamp(
  raw: string | undefined,
  rule: TimestampRule,
  now: number,
): string | undefined {
  if (raw === undefined || raw === "") return "missing_timestamp";
  const ms = instantOf(raw, rule.unit);
  if (ms === undefined) return "bad_timestamp";
  return Math.abs(now - ms) > rule.toleranceMs ? "stale_timestamp" : undefined;
}

const RFC3339_STAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

function instantOf(raw: string, unit: TimestampRule["unit"]): number | undefined {
  if (unit === "rfc3339") {
    if (!RFC3339_STAMP.test(raw)) return undefined;
    const ms = Date.parse(raw);
    return Number.isFinite(ms) ? ms : undefined;
  }
  if (!/^\d{1,16}$/.test(raw)) return undefined;
  return unit === "s" ? Number(raw) * 1000 : Number(raw);
}

// ── schemes ─────────────────────────────────────────────────────────────────────────────────

export type Verifier = (req: WebhookRequest, ctx: SourceContext) => VerifyResult | Promise<VerifyResult>;

export interface HmacSchemeSpec {
  /** The secret's base variable name (without `_{TENANT_ID}`). */
  secret: string;
  /** Turns the configured secret into key bytes (Standard Webhooks: base64 after `whsec_`). */
  key?: (secret: string) => Bytes | undefined;
  hash: HashName;
  encoding: Encoding;
  signatures: SignatureReader;
  payload: Payload;
  timestamp?: TimestampRule;
}

/** A verifier for an HMAC recipe: any one presented signature equal to the expected one passes. */
export function hmacScheme(spec: HmacSchemeSpec): Verifier {
  return (req, ctx) => {
    const secret = ctx.secrets[spec.secret] ?? "";
    if (!secret) return { ok: false, reason: "secret_missing" };
    const key = spec.key ? spec.key(secret) : secret;
    if (key === undefined) return { ok: false, reason: "secret_unusable" };
    const presented = spec.signatures(req);
    if (!presented) return { ok: false, reason: "missing_signature" };
    if (spec.timestamp) {
      const stamp = presented.timestamp ?? spec.timestamp.read?.(req);
      const refused = checkTimestamp(stamp, spec.timestamp, ctx.now());
      if (refused) return { ok: false, reason: refused };
      presented.timestamp = stamp;
    }
    const parts = spec.payload(req, presented);
    if (!parts) return { ok: false, reason: "missing_signed_fields" };
    const expected = hmac(spec.hash, key, parts).toString(spec.encoding);
    // Hex digests are compared case-insensitively: the platforms differ in case.
    const given =
      spec.encoding === "hex" ? presented.signatures.map((s) => s.toLowerCase()) : presented.signatures;
    return safeEqualAny(expected, given) ? { ok: true } : { ok: false, reason: "bad_signature" };
  };
}

/**
 * A shared token compared with the per-tenant secret: `Authorization: Bearer <token>` or a header
 * of its own (`X-Goog-Channel-Token`).
 */
export function tokenScheme(spec: { secret: string; header?: string }): Verifier {
  return (req, ctx) => {
    const expected = ctx.secrets[spec.secret] ?? "";
    if (!expected) return { ok: false, reason: "secret_missing" };
    const given = spec.header ? req.headers.get(spec.header)?.trim() : bearerOf(req.headers);
    if (!given) return { ok: false, reason: "missing_token" };
    return safeEqual(given, expected) ? { ok: true } : { ok: false, reason: "bad_token" };
  };
}

function bearerOf(headers: Headers): string | undefined {
  return /^Bearer[ \t]+(\S+)\s*$/i.exec(headers.get("authorization") ?? "")?.[1];
}

/** Standard Webhooks secrets: `whsec_` + base64 of the key bytes. */
export function whsecKey(secret: string): Uint8Array | undefined {
  const b64 = secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return undefined;
  const bytes = Buffer.from(b64, "base64");
  return bytes.byteLength > 0 ? bytes : undefined;
}
