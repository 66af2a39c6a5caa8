import { describe, expect, test } from "bun:test";
import { Backoff, backoffDelay } from "../../src/connectors/backoff.ts";
import { insecureUrlReason } from "../../src/connectors/url-policy.ts";

describe("backoffDelay", () => {
  const opts = { baseMs: 1000, maxMs: 30_000 };

  test("doubles per attempt; half the step is fixed, half is jitter", () => {
    expect([0, 1, 2, 3].map((a) => backoffDelay(a, { ...opts, random: () => 0 }))).toEqual([
      500, 1000, 2000, 4000,
    ]);
    expect([0, 1, 2, 3].map((a) => backoffDelay(a, { ...opts, random: () => 1 }))).toEqual([
      1000, 2000, 4000, 8000,
    ]);
    expect(backoffDelay(2, { ...opts, random: () => 0.5 })).toBe(3000);
  });

  test("is capped at maxMs, however many attempts", () => {
    expect(backoffDelay(10, { ...opts, random: () => 1 })).toBe(30_000);
    expect(backoffDelay(10_000, { ...opts, random: () => 0 })).toBe(15_000);
  });

  test("a random source out of [0, 1] cannot push it out of bounds", () => {
    expect(backoffDelay(0, { ...opts, random: () => 7 })).toBe(1000);
    expect(backoffDelay(0, { ...opts, random: () => Number.NaN })).toBe(750);
  });

  test("Backoff counts failures and starts over after reset", () => {
    const b = new Backoff({ ...opts, random: () => 1 });
    expect([b.next(), b.next(), b.next()]).toEqual([1000, 2000, 4000]);
    expect(b.attempts).toBe(3);
    b.reset();
    expect(b.next()).toBe(1000);
  });
});

describe("insecureUrlReason", () => {
  test("https anywhere, plain http only on loopback", () => {
    expect(insecureUrlReason("X", "https://acme.my.example.com")).toBeUndefined();
    for (const ok of ["http://127.0.0.1:8080", "http://localhost:1/x", "http://[::1]:9/"]) {
      expect(insecureUrlReason("X", ok)).toBeUndefined();
    }
    expect(insecureUrlReason("CRM_INSTANCE_URL", "http://acme.my.example.com")).toContain("must use https");
    expect(insecureUrlReason("CRM_INSTANCE_URL", "http://127.0.0.2")).toContain("must use https");
    expect(insecureUrlReason("CRM_INSTANCE_URL", "ftp://localhost")).toContain("must use https");
    expect(insecureUrlReason("CRM_INSTANCE_URL", "not a url")).toBe("CRM_INSTANCE_URL is not a valid URL");
  });
});
