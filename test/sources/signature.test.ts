import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { hmacSha256, safeEqual, safeEqualAny, sha256Hex } from "../../src/sources/signature.ts";

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
