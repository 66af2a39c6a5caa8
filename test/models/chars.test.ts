import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Chars, charCount } from "../../src/models/chars.ts";

describe("charCount", () => {
  test("counts code points, a surrogate pair as one", () => {
    expect(charCount("")).toBe(0);
    expect(charCount("abc")).toBe(3);
    expect(charCount("🦊🦊")).toBe(2);
    expect(charCount("é")).toBe(1);
    expect(charCount("e\u0301")).toBe(2); // a combining mark is a code point of its own
  });

  test("a lone surrogate counts as one character", () => {
    expect(charCount("a\ud83d")).toBe(2);
    expect(charCount("\udc00b")).toBe(2);
  });

  test("stops counting once past max (hostile lengths stay cheap)", () => {
    expect(charCount("x".repeat(1_000_000), 10)).toBe(11);
  });
});

describe("Chars schema", () => {
  const check = TypeCompiler.Compile(Type.Object({ s: Chars(2, 4) }));

  test("bounds are in characters", () => {
    expect(check.Check({ s: "🦊🦊🦊🦊" })).toBe(true); // 8 UTF-16 units
    expect(check.Check({ s: "ab" })).toBe(true);
    expect(check.Check({ s: "🦊" })).toBe(false);
    expect(check.Check({ s: "🦊🦊🦊🦊🦊" })).toBe(false);
    expect(check.Check({ s: 4 })).toBe(false);
  });

  test("says what is wrong in characters", () => {
    expect(check.Errors({ s: "🦊🦊🦊🦊🦊" }).First()?.message).toBe("Expected a string of 2–4 characters");
    expect(check.Errors({ s: 7 }).First()?.message).toBe("Expected string");
  });

  test("is a plain JSON Schema string for documents", () => {
    expect(JSON.parse(JSON.stringify(Chars(1, 64)))).toEqual({ type: "string", minLength: 1, maxLength: 64 });
  });
});
