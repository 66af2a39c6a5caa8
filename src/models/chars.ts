import { Kind, type SchemaOptions, Type, TypeRegistry } from "@sinclair/typebox";
import { DefaultErrorFunction, SetErrorFunction } from "@sinclair/typebox/errors";

/**
 * Text limits count characters (Unicode code points), as CONTRACT §5 and JSON Schema do, not the
 * UTF-16 units of `String.length`: 32,768 emoji are 32,768 characters. A TypeBox kind of its own
 * keeps the rule in the schema, so routes, connectors and the OpenAPI document (a plain string
 * with minLength/maxLength) all say the same thing.
 */
const KIND = "Chars";

export interface CharsSchema extends SchemaOptions {
  type: "string";
  minLength: number;
  maxLength: number;
}

/** The number of code points of `value`; counting stops once it passes `max` (for long hostile input). */
export function charCount(value: string, max = Number.POSITIVE_INFINITY): number {
  let n = 0;
  for (let i = 0; i < value.length && n <= max; i++) {
    const c = value.charCodeAt(i);
    // A high surrogate followed by a low one is one character (a lone surrogate counts as one).
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

TypeRegistry.Set<CharsSchema>(KIND, (schema, value) => {
  if (typeof value !== "string") return false;
  // Fast path: the unit count bounds the character count from above, and half of it from below.
  if (value.length <= schema.maxLength && value.length >= schema.minLength * 2) return true;
  const n = charCount(value, schema.maxLength);
  return n >= schema.minLength && n <= schema.maxLength;
});

SetErrorFunction((param) => {
  if (param.schema[Kind] === KIND) {
    const s = param.schema as unknown as CharsSchema;
    return typeof param.value === "string"
      ? `Expected a string of ${s.minLength}–${s.maxLength} characters`
      : "Expected string";
  }
  return DefaultErrorFunction(param);
});

/** A string of `min`–`max` characters (code points). */
export function Chars(min: number, max: number, options: SchemaOptions = {}) {
  return Type.Unsafe<string>({ ...options, [Kind]: KIND, type: "string", minLength: min, maxLength: max });
}
