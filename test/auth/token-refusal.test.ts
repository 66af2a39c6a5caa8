import { describe, expect, test } from "bun:test";
import { whyRefused } from "../../src/auth/token-refusal.ts";
import { craftJwt } from "../helpers/jwt.ts";

const NOW_MS = Date.UTC(2026, 10, 21, 10, 0, 0);
const NOW = NOW_MS / 1000;
const hs256 = (payload: Record<string, unknown>) => craftJwt({ alg: "HS256" }, payload, "any-secret");

describe("whyRefused (the words of a refusal, read from the refused token)", () => {
  test("a token that cannot be decoded is malformed", () => {
    for (const raw of ["", "abc", "a.b", "a.b.c", "....", `${hs256({ exp: NOW + 60 })}.x.y`]) {
      expect({ raw, why: whyRefused(raw, NOW_MS) }).toEqual({ raw, why: "token malformed" });
    }
  });

  test("a header naming another algorithm is the algorithm", () => {
    for (const alg of ["HS384", "HS512", "RS256", "none", "NONE", undefined]) {
      const raw = craftJwt(alg === undefined ? {} : { alg }, { exp: NOW + 60 }, undefined);
      expect({ alg, why: whyRefused(raw, NOW_MS) }).toEqual({
        alg,
        why: "token algorithm not allowed (HS256 only)",
      });
    }
  });

  test("the time claims, in the verifier's order: exp missing, not a number, passed; nbf ahead", () => {
    expect(whyRefused(hs256({ sub: "x" }), NOW_MS)).toBe("token claim missing: exp");
    expect(whyRefused(hs256({ exp: String(NOW + 60) }), NOW_MS)).toBe("token claim invalid: exp");
    expect(whyRefused(hs256({ exp: NOW + 60, iat: "now" }), NOW_MS)).toBe("token claim invalid: iat");
    expect(whyRefused(hs256({ exp: NOW }), NOW_MS)).toBe("token expired");
    expect(whyRefused(hs256({ exp: -1 }), NOW_MS)).toBe("token expired");
    expect(whyRefused(hs256({ exp: NOW + 60, nbf: NOW + 30 }), NOW_MS)).toBe("token not yet valid");
  });

  test("what none of the claims explains is the signature", () => {
    expect(whyRefused(hs256({ exp: NOW + 1 }), NOW_MS)).toBe("token signature invalid");
  });
});
