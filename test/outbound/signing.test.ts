import { describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import {
  generateSecret,
  secretProblem,
  signatureOf,
  signingKey,
  webhookHeaders,
  webhookIdOf,
} from "../../src/outbound/signing.ts";
import { subscriptionUrlProblem } from "../../src/outbound/subscription-url.ts";

describe("Standard Webhooks signing", () => {
  test("a generated secret is whsec_ and 32 random bytes in base64, and well formed", () => {
    const a = generateSecret();
    const b = generateSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(signingKey(a)).toHaveLength(32);
    expect(a).not.toBe(b);
    expect(secretProblem(a)).toBeUndefined();
  });

  test("the signature is the library's, and the library verifies our headers", () => {
    const secret = generateSecret();
    const body = JSON.stringify({
      type: "entry.created",
      timestamp: "2026-11-21T10:00:00.000Z",
      data: { x: "é" },
    });
    const id = webhookIdOf("01JDB2X6J3KQ5W8Z3M4N7P9R2S", 42);
    const now = Date.now();
    const headers = webhookHeaders(signingKey(secret), id, now, body);
    expect(headers).toMatchObject({
      "content-type": "application/json",
      "webhook-id": "msg_01JDB2X6J3KQ5W8Z3M4N7P9R2S_42",
      "webhook-timestamp": String(Math.floor(now / 1000)),
    });
    const lib = new Webhook(secret);
    expect(headers["webhook-signature"]).toBe(lib.sign(id, new Date(Math.floor(now / 1000) * 1000), body));
    expect(lib.verify(body, headers)).toEqual(JSON.parse(body));
    // Another secret, or a body changed by one byte, is refused.
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow();
    expect(() => lib.verify(body.replace("é", "e"), headers)).toThrow();
  });

  test("fixed vector: key bytes 0..31, id msg_1, timestamp 1700000000, body {}", () => {
    const key = Buffer.from(Array.from({ length: 32 }, (_, i) => i));
    const secret = `whsec_${key.toString("base64")}`;
    const expected = new Webhook(secret).sign("msg_1", new Date(1_700_000_000_000), "{}");
    expect(signatureOf(key, "msg_1", 1_700_000_000, "{}")).toBe(expected);
  });

  test("a given secret must be whsec_ and base64 of 24 to 64 bytes; the reason never quotes it", () => {
    const b64 = (n: number) => Buffer.alloc(n, 7).toString("base64");
    const bad = [
      "",
      "secret",
      b64(32),
      "whsec_",
      "whsec_not base64!",
      `whsec_${b64(32)}x`,
      `whsec_${b64(16)}`,
      `whsec_${b64(65)}`,
      `WHSEC_${b64(32)}`,
      `whsec_${b64(32).replace(/=+$/, "")}`,
    ];
    for (const s of bad) {
      const reason = secretProblem(s);
      expect({ s, reason: typeof reason }).toEqual({ s, reason: "string" });
      if (s.length > 6) expect(reason).not.toContain(s.slice(6));
    }
    for (const n of [24, 32, 64]) expect(secretProblem(`whsec_${b64(n)}`)).toBeUndefined();
  });
});

describe("subscription URLs", () => {
  test("https anywhere, http only on loopback, nothing else", () => {
    for (const ok of [
      "https://hooks.example.com/in",
      "https://example.com:8443/a?b=c",
      "http://127.0.0.1:9000/hook",
      "http://localhost/hook",
      "http://[::1]:8080/",
    ])
      expect({ ok, problem: subscriptionUrlProblem(ok) }).toEqual({ ok, problem: undefined });
    for (const bad of [
      "http://example.com/hook",
      "ftp://example.com/x",
      "file:///etc/passwd",
      "javascript:alert(1)",
      "data:text/plain,hi",
      "not a url",
      "//example.com/x",
      "https://user:pass@example.com/hook",
      "https://token@example.com/hook",
      "http://127.0.0.1.evil.example/hook",
    ])
      expect({ bad, problem: typeof subscriptionUrlProblem(bad) }).toEqual({ bad, problem: "string" });
  });
});
