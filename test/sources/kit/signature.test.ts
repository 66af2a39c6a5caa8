import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import {
  calledUrl,
  checkTimestamp,
  hmacScheme,
  hmacSha256,
  payloads,
  safeEqual,
  safeEqualAny,
  sha256Hex,
  signatures,
  tokenScheme,
  whsecKey,
} from "../../../src/sources/kit/signature.ts";
import type { SourceContext, WebhookRequest } from "../../../src/sources/types.ts";

describe("signature helpers", () => {
  test("hmacSha256 over several parts equals one HMAC over their concatenation", () => {
    const expected = createHmac("sha256", "k")
      .update("abc")
      .update(Buffer.from([1, 2]))
      .digest();
    expect(hmacSha256("k", "a", "bc", new Uint8Array([1, 2])).equals(expected)).toBe(true);
  });

  test("sha256Hex matches a known vector", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex("a", "bc")).toBe(sha256Hex("abc"));
  });

  test("safeEqual compares content and length, strings and bytes alike", () => {
    expect(safeEqual("secret", "secret")).toBe(true);
    expect(safeEqual("secret", "secreT")).toBe(false);
    expect(safeEqual("secret", "secret-longer")).toBe(false);
    expect(safeEqual("", "")).toBe(true);
    expect(safeEqual("", "x")).toBe(false);
    expect(safeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(safeEqual("é", Buffer.from("é"))).toBe(true);
  });

  test("safeEqualAny accepts any matching candidate", () => {
    expect(safeEqualAny("b", ["a", "b", "c"])).toBe(true);
    expect(safeEqualAny("d", ["a", "b"])).toBe(false);
    expect(safeEqualAny("d", [])).toBe(false);
  });
});

// ── the toolkit: schemes over fixed vectors ─────────────────────────────────────────────────

const NOW = Date.UTC(2026, 10, 21, 10, 0, 0);

function request(
  headers: Record<string, string>,
  body: string,
  url = "https://hooks.example.com/webhooks/x/T",
): WebhookRequest {
  return { method: "POST", url, headers: new Headers(headers), rawBody: new TextEncoder().encode(body) };
}

function ctxWith(secrets: Record<string, string>, now = NOW): SourceContext {
  return { tenantId: "T", secrets, now: () => now };
}

const hex = (hash: "sha256" | "sha1", key: string | Buffer, data: string) =>
  createHmac(hash, key).update(data).digest("hex");
const b64 = (hash: "sha256" | "sha1", key: string | Buffer, data: string) =>
  createHmac(hash, key).update(data).digest("base64");

describe("hmacScheme: published vectors", () => {
  test("GitHub's documented vector (sha256=<hex HMAC of the body>)", async () => {
    const verify = hmacScheme({
      secret: "S",
      hash: "sha256",
      encoding: "hex",
      signatures: signatures.header("x-hub-signature-256", "sha256="),
      payload: payloads.body,
    });
    const sig = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
    const ctx = ctxWith({ S: "It's a Secret to Everybody" });
    expect(await verify(request({ "x-hub-signature-256": sig }, "Hello, World!"), ctx)).toEqual({ ok: true });
    expect(await verify(request({ "x-hub-signature-256": sig }, "Hello, World?"), ctx)).toEqual({
      ok: false,
      reason: "bad_signature",
    });
  });

  test("Twilio's documented vector (the URL, then the sorted form parameters, HMAC-SHA1 base64)", async () => {
    const verify = hmacScheme({
      secret: "S",
      hash: "sha1",
      encoding: "base64",
      signatures: signatures.header("x-twilio-signature"),
      payload: payloads.urlAndSortedForm,
    });
    const body =
      "CallSid=CA1234567890ABCDE&Caller=%2B12349013030&Digits=1234&From=%2B12349013030&To=%2B18005551212";
    const req = request(
      { "x-twilio-signature": "0/KCTR6DLpKmkAf8muzZqo1nDgQ=" },
      body,
      "https://mycompany.com/myapp.php?foo=1&bar=2",
    );
    expect(await verify(req, ctxWith({ S: "12345" }))).toEqual({ ok: true });
  });

  test("Standard Webhooks' specification vector (v1,<base64 HMAC of id.ts.body>, whsec_ key)", async () => {
    const verify = hmacScheme({
      secret: "S",
      key: whsecKey,
      hash: "sha256",
      encoding: "base64",
      signatures: signatures.with(signatures.list("webhook-signature", " ", "v1,"), {
        id: "webhook-id",
        timestamp: "webhook-timestamp",
      }),
      payload: payloads.idTimestampBody,
      timestamp: { unit: "s", toleranceMs: 5 * 60_000 },
    });
    const headers = {
      "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
      "webhook-timestamp": "1614265330",
      "webhook-signature": "v1,bm90LXRoaXM= v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    };
    const ctx = ctxWith({ S: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }, 1614265330_000);
    expect(await verify(request(headers, '{"test": 2432232314}'), ctx)).toEqual({ ok: true });
    // The same delivery ten minutes later is stale.
    const later = ctxWith({ S: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }, 1614265330_000 + 600_000);
    expect(await verify(request(headers, '{"test": 2432232314}'), later)).toEqual({
      ok: false,
      reason: "stale_timestamp",
    });
  });
});

describe("signature readers", () => {
  test("t=..,v1=..,v1=.. : every v1 is a candidate, t is the timestamp (secret rotation)", async () => {
    const verify = hmacScheme({
      secret: "S",
      hash: "sha256",
      encoding: "hex",
      signatures: signatures.keyValueList("stripe-signature", { signature: "v1", timestamp: "t" }),
      payload: payloads.timestampDotBody,
      timestamp: { unit: "s", toleranceMs: 300_000 },
    });
    const t = String(NOW / 1000);
    const good = hex("sha256", "new-secret", `${t}.{"id":"evt_1"}`);
    const old = hex("sha256", "old-secret", `${t}.{"id":"evt_1"}`);
    const header = `t=${t},v1=${old},v1=${good},v0=ignored`;
    const ctx = ctxWith({ S: "new-secret" });
    expect(await verify(request({ "stripe-signature": header }, '{"id":"evt_1"}'), ctx)).toEqual({
      ok: true,
    });
    expect(await verify(request({ "stripe-signature": `t=${t},v1=${old}` }, '{"id":"evt_1"}'), ctx)).toEqual({
      ok: false,
      reason: "bad_signature",
    });
    expect(await verify(request({ "stripe-signature": `v1=${good}` }, '{"id":"evt_1"}'), ctx)).toEqual({
      ok: false,
      reason: "missing_timestamp",
    });
  });

  test("v1=..,v1=.. (comma-separated list with a version prefix): any one valid passes", async () => {
    const read = signatures.list("x-pagerduty-signature", ",", "v1=");
    expect(read(request({ "x-pagerduty-signature": "v1=aa, v1=bb,v2=cc" }, ""))?.signatures).toEqual([
      "aa",
      "bb",
    ]);
    expect(read(request({}, ""))).toBeUndefined();
    expect(read(request({ "x-pagerduty-signature": "v2=cc" }, ""))).toBeUndefined();
  });

  test("numbered headers X-DocuSign-Signature-1..N", () => {
    const read = signatures.numbered("x-docusign-signature-");
    const found = read(request({ "x-docusign-signature-1": "one", "x-docusign-signature-2": "two" }, ""));
    expect(found?.signatures).toEqual(["one", "two"]);
    expect(read(request({}, ""))).toBeUndefined();
  });

  test("a header sent twice (joined with ', ') presents both values: rotation for single-signature platforms", () => {
    const read = signatures.header("x-hub-signature-256", "sha256=");
    const headers = new Headers();
    headers.append("x-hub-signature-256", "sha256=old");
    headers.append("x-hub-signature-256", "sha256=new");
    expect(read({ method: "POST", url: "", headers, rawBody: new Uint8Array() })?.signatures).toEqual([
      "old",
      "new",
    ]);
  });

  test("a header with a prefix: a value without it presents nothing", () => {
    const read = signatures.header("x-hub-signature", "sha1=");
    expect(read(request({ "x-hub-signature": "sha1=abc" }, ""))?.signatures).toEqual(["abc"]);
    expect(read(request({ "x-hub-signature": "SHA1=abc" }, ""))?.signatures).toEqual(["abc"]);
    expect(read(request({ "x-hub-signature": "md5=abc" }, ""))).toBeUndefined();
  });

  test("at most 16 signatures are considered", () => {
    const many = Array.from({ length: 40 }, (_, i) => `v1=${i}`).join(",");
    expect(signatures.list("h", ",", "v1=")(request({ h: many }, ""))?.signatures).toHaveLength(16);
  });
});

describe("payload templates", () => {
  test("v0:ts:body (Zoom), timestamp + body (Zendesk), the body alone", async () => {
    const body = '{"event":"meeting.ended"}';
    const zoom = hmacScheme({
      secret: "S",
      hash: "sha256",
      encoding: "hex",
      signatures: signatures.with(signatures.header("x-zm-signature", "v0="), {
        timestamp: "x-zm-request-timestamp",
      }),
      payload: payloads.versionTimestampBody("v0"),
      timestamp: { unit: "s", toleranceMs: 300_000 },
    });
    const ts = String(NOW / 1000);
    const zsig = `v0=${hex("sha256", "k", `v0:${ts}:${body}`)}`;
    expect(
      await zoom(
        request({ "x-zm-signature": zsig, "x-zm-request-timestamp": ts }, body),
        ctxWith({ S: "k" }),
      ),
    ).toEqual({
      ok: true,
    });

    const zendesk = hmacScheme({
      secret: "S",
      hash: "sha256",
      encoding: "base64",
      signatures: signatures.with(signatures.header("x-zendesk-webhook-signature"), {
        timestamp: "x-zendesk-webhook-signature-timestamp",
      }),
      payload: payloads.timestampBody,
    });
    const stamp = "2026-11-21T10:00:00Z";
    const zd = b64("sha256", "k", `${stamp}${body}`);
    const headers = { "x-zendesk-webhook-signature": zd, "x-zendesk-webhook-signature-timestamp": stamp };
    expect(await zendesk(request(headers, body), ctxWith({ S: "k" }))).toEqual({ ok: true });
  });

  test("full URL behind a proxy: X-Forwarded-Proto and -Host are what the sender called", () => {
    const req = request(
      { "x-forwarded-proto": "https", "x-forwarded-host": "api.example.com" },
      "",
      "http://10.0.0.5:8080/webhooks/telephony/T?x=1",
    );
    expect(calledUrl(req)).toBe("https://api.example.com/webhooks/telephony/T?x=1");
    expect(calledUrl(request({}, "", "http://127.0.0.1:8080/a?b=c"))).toBe("http://127.0.0.1:8080/a?b=c");
  });

  test("sorted form parameters keep repeated names in order; invalid UTF-8 presents nothing", () => {
    const req = request({}, "b=2&a=1&b=1", "https://h/x");
    expect(payloads.urlAndSortedForm(req, { signatures: [] })).toEqual([
      "https://h/x",
      "a",
      "1",
      "b",
      "2",
      "b",
      "1",
    ]);
    const bad: WebhookRequest = { ...req, rawBody: new Uint8Array([0xff, 0xfe]) };
    expect(payloads.urlAndSortedForm(bad, { signatures: [] })).toBeUndefined();
  });
});

describe("timestamps and tokens", () => {
  test("checkTimestamp: inside the window either way; missing, malformed and stale refused", () => {
    const rule = { unit: "s" as const, toleranceMs: 300_000 };
    expect(checkTimestamp(String(NOW / 1000 - 299), rule, NOW)).toBeUndefined();
    expect(checkTimestamp(String(NOW / 1000 + 299), rule, NOW)).toBeUndefined();
    expect(checkTimestamp(String(NOW / 1000 - 301), rule, NOW)).toBe("stale_timestamp");
    expect(checkTimestamp(String(NOW / 1000 + 301), rule, NOW)).toBe("stale_timestamp");
    expect(checkTimestamp(undefined, rule, NOW)).toBe("missing_timestamp");
    expect(checkTimestamp("12abc", rule, NOW)).toBe("bad_timestamp");
    expect(checkTimestamp(String(NOW), { unit: "ms", toleranceMs: 60_000 }, NOW + 59_000)).toBeUndefined();
    const iso = { unit: "rfc3339" as const, toleranceMs: 300_000 };
    expect(checkTimestamp("2026-11-21T09:56:00Z", iso, NOW)).toBeUndefined();
    expect(checkTimestamp("2026-11-21T09:54:00Z", iso, NOW)).toBe("stale_timestamp");
    expect(checkTimestamp("yesterday", iso, NOW)).toBe("bad_timestamp");
  });

  test("a timestamp read from the body (Linear's webhookTimestamp)", async () => {
    const verify = hmacScheme({
      secret: "S",
      hash: "sha256",
      encoding: "hex",
      signatures: signatures.header("linear-signature"),
      payload: payloads.body,
      timestamp: {
        unit: "ms",
        toleranceMs: 60_000,
        read: (req) => String(JSON.parse(new TextDecoder().decode(req.rawBody)).webhookTimestamp),
      },
    });
    const body = JSON.stringify({ action: "create", webhookTimestamp: NOW - 1000 });
    const sig = hex("sha256", "k", body);
    expect(await verify(request({ "linear-signature": sig }, body), ctxWith({ S: "k" }))).toEqual({
      ok: true,
    });
    expect(
      await verify(request({ "linear-signature": sig }, body), ctxWith({ S: "k" }, NOW + 120_000)),
    ).toEqual({
      ok: false,
      reason: "stale_timestamp",
    });
  });

  test("tokenScheme: bearer or a header of its own, compared in constant time", async () => {
    const bearer = tokenScheme({ secret: "S" });
    const channel = tokenScheme({ secret: "S", header: "x-goog-channel-token" });
    const ctx = ctxWith({ S: "tok" });
    expect(await bearer(request({ authorization: "Bearer tok" }, ""), ctx)).toEqual({ ok: true });
    expect(await bearer(request({ authorization: "Bearer nope" }, ""), ctx)).toEqual({
      ok: false,
      reason: "bad_token",
    });
    expect(await bearer(request({}, ""), ctx)).toEqual({ ok: false, reason: "missing_token" });
    expect(await channel(request({ "x-goog-channel-token": "tok" }, ""), ctx)).toEqual({ ok: true });
    expect(await channel(request({}, ""), ctxWith({}))).toEqual({ ok: false, reason: "secret_missing" });
  });

  test("whsecKey decodes whsec_ + base64, and refuses what is not base64", () => {
    expect(Buffer.from(whsecKey("whsec_aGVsbG8=")!).toString()).toBe("hello");
    expect(Buffer.from(whsecKey("aGVsbG8=")!).toString()).toBe("hello");
    expect(whsecKey("whsec_not base64!")).toBeUndefined();
    expect(whsecKey("whsec_")).toBeUndefined();
  });

  test("a hex signature in upper case passes; a missing signature is named", async () => {
    const verify = hmacScheme({
      secret: "S",
      hash: "sha1",
      encoding: "hex",
      signatures: signatures.header("x-signature"),
      payload: payloads.body,
    });
    const sig = hex("sha1", "k", "body").toUpperCase();
    expect(await verify(request({ "x-signature": sig }, "body"), ctxWith({ S: "k" }))).toEqual({ ok: true });
    expect(await verify(request({}, "body"), ctxWith({ S: "k" }))).toEqual({
      ok: false,
      reason: "missing_signature",
    });
  });
});
