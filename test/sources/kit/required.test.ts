import { describe, expect, test } from "bun:test";
import {
  anyOf,
  freeText,
  hasContents,
  isValue,
  MissingField,
  missingField,
  need,
  nonEmpty,
  PLACEHOLDERS,
  valueText,
} from "../../../src/sources/kit/required.ts";

describe("required fields: what counts as a value", () => {
  test("blank text and the documented placeholders are no value, whatever their case and padding", () => {
    expect(PLACEHOLDERS).toEqual(["?", "-", "n/a", "null", "undefined", "unknown"]);
    for (const empty of ["", " ", "\t\n ", "?", " ? ", "-", "N/A", "n/a", "NULL", "undefined", " Unknown "])
      expect({ empty, value: isValue(empty) }).toEqual({ empty, value: false });
    for (const real of ["0", "pi_3Pabc", "main", "none", "unknown-host", "n/a?", "??", "—"])
      expect({ real, value: isValue(real) }).toEqual({ real, value: true });
  });

  test("numbers (zero too) and booleans are values; null, objects, lists and NaN are not", () => {
    for (const real of [0, -1, 12.5, true, false]) expect(isValue(real)).toBe(true);
    for (const empty of [null, undefined, Number.NaN, Number.POSITIVE_INFINITY, {}, { id: "x" }, [], ["x"]])
      expect(isValue(empty)).toBe(false);
  });

  test("valueText reads a value as trimmed text and anything else as absent", () => {
    expect(valueText("  main ")).toBe("main");
    expect(valueText(42)).toBe("42");
    expect(valueText(false)).toBe("false");
    expect(valueText(" unknown ")).toBeUndefined();
    expect(valueText({ id: 1 })).toBeUndefined();
  });

  test("contents: a record or list with a value somewhere inside", () => {
    expect(hasContents({ id: "x" })).toBe(true);
    expect(hasContents({ a: { b: [null, " ", 0] } })).toBe(true);
    expect(hasContents(["IMPORTANT"])).toBe(true);
    for (const empty of [{}, [], { a: null, b: " ", c: "?" }, [[], {}], "text", 5, null])
      expect(hasContents(empty)).toBe(false);
  });
});

describe("missingField: the first rule an event breaks, named by its path", () => {
  const ev = {
    id: "evt_1",
    blank: "   ",
    placeholder: "?",
    zero: 0,
    data: {
      object: { id: "pi_1", customer: "unknown", nested: { deep: { ref: "r-1" } } },
      items: [{ price: { id: "price_1" } }, { price: { id: "" } }],
      tags: ["a", "b"],
      empty: [],
    },
    body: "-",
  };

  test("present paths pass, nested ones too; no rules, no fault", () => {
    expect(missingField(ev, ["id", "zero", "data.object.id", "data.object.nested.deep.ref"])).toBeUndefined();
    expect(missingField(ev, [])).toBeUndefined();
    expect(missingField(ev, undefined)).toBeUndefined();
  });

  test("absent, blank and placeholder values are missing, and the first one is named", () => {
    expect(missingField(ev, ["id", "data.object.missing"])).toBe("data.object.missing");
    expect(missingField(ev, ["blank", "placeholder"])).toBe("blank");
    expect(missingField(ev, ["placeholder"])).toBe("placeholder");
    expect(missingField(ev, ["data.object.customer"])).toBe("data.object.customer");
    expect(missingField({}, ["data.object.id"])).toBe("data.object.id");
    expect(missingField(null, ["id"])).toBe("id");
  });

  test("arrays: digits index them; a list or record where a value belongs is missing", () => {
    expect(missingField(ev, ["data.items.0.price.id"])).toBeUndefined();
    expect(missingField(ev, ["data.items.1.price.id"])).toBe("data.items.1.price.id");
    expect(missingField(ev, ["data.items.7.price.id"])).toBe("data.items.7.price.id");
    expect(missingField(ev, ["data.tags"])).toBe("data.tags");
    expect(missingField(ev, ["data.object"])).toBe("data.object");
    expect(missingField(ev, [nonEmpty("data.tags")])).toBeUndefined();
    expect(missingField(ev, [nonEmpty("data.empty")])).toBe("data.empty");
  });

  test("a path never walks into what the prototype holds", () => {
    expect(missingField({}, ["constructor", "toString"])).toBe("constructor");
    expect(missingField({ a: {} }, ["a.__proto__", "a.hasOwnProperty"])).toBe("a.__proto__");
  });

  test("anyOf holds when one alternative does, and names them all when none does", () => {
    expect(missingField(ev, [anyOf("placeholder", "id")])).toBeUndefined();
    expect(missingField(ev, [anyOf("blank", "placeholder", "nope")])).toBe("blank or placeholder or nope");
  });

  test("free text is missing only when blank: '-' or '?' is something a person can write", () => {
    expect(missingField(ev, [freeText("body"), freeText("placeholder"), freeText("zero")])).toBeUndefined();
    expect(missingField(ev, [freeText("blank")])).toBe("blank");
    expect(missingField(ev, [freeText("blank", "body")])).toBeUndefined();
    expect(missingField(ev, [freeText("data.object")])).toBe("data.object");
  });
});

describe("need: a computed value or a dead letter naming its field", () => {
  test("gives the value back, and throws MissingField for absent, blank and placeholder text", () => {
    expect(need("Ada <ada@example.com>", "payload.email")).toBe("Ada <ada@example.com>");
    expect(need(0, "count")).toBe(0);
    for (const empty of [undefined, null, "", "  ", "?", "unknown"]) {
      expect(() => need(empty, "payload.email")).toThrow(MissingField);
      expect(() => need(empty, "payload.email")).toThrow("payload.email");
    }
  });
});
