import { describe, expect, test } from "bun:test";
import { ValidationFailed } from "../../src/errors/domain-errors.ts";
import { decodeCursor, encodeCursor } from "../../src/memory/cursor.ts";

describe("cursor", () => {
  test("round-trips sequence numbers", () => {
    for (const seq of [0, 1, 7, 123_456, Number.MAX_SAFE_INTEGER]) {
      const c = encodeCursor(seq);
      expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeCursor(c)).toBe(seq);
    }
  });

  const b64 = (s: string) => Buffer.from(s).toString("base64url");
  const garbage: Array<[string, string]> = [
    ["empty", ""],
    ["not base64 JSON", "abc"],
    ["punctuation", "!!!!"],
    ["JSON without s", b64("{}")],
    ["s a string", b64('{"s":"1"}')],
    ["s negative", b64('{"s":-1}')],
    ["s fractional", b64('{"s":1.5}')],
    ["s unsafe", b64('{"s":1e300}')],
    ["JSON null", b64("null")],
    ["JSON array", b64("[1]")],
    ["too long", b64(`{"s":1,"pad":"${"x".repeat(100)}"}`)],
  ];
  for (const [name, cursor] of garbage) {
    test(`garbage (${name}) → ValidationFailed`, () => {
      let thrown: unknown;
      try {
        decodeCursor(cursor);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ValidationFailed);
      expect((thrown as ValidationFailed).status).toBe(422);
      expect((thrown as ValidationFailed).errors?.[0]?.path).toBe("/cursor");
    });
  }
});
