import { Kind, type SchemaOptions, Type, TypeRegistry } from "@sinclair/typebox";
import { GetErrorFunction, SetErrorFunction } from "@sinclair/typebox/errors";
// Loaded first: it sets TypeBox's error function, which the one below then wraps.
import { charCount } from "./chars.ts";

/**
 * Schema kinds of our own, for rules a JSON Schema keyword states but TypeBox (or the format
 * checkers another library registered) would check differently: the document shows the schema's
 * keywords (`type`, `pattern`, `format`, bounds), and the service checks exactly `check`. So the
 * document and the service cannot drift apart, and a refusal says what the rule is.
 */
type Check = (schema: Record<string, unknown>, value: unknown) => boolean;
type Message = (schema: Record<string, unknown>, value: unknown) => string;

const messages = new Map<string, Message>();
const previous = GetErrorFunction();
SetErrorFunction((param) => {
  const message = messages.get(String(param.schema[Kind]));
  return message ? message(param.schema as unknown as Record<string, unknown>, param.value) : previous(param);
});

/**
 * A schema of kind `name`: `keywords` are what the document shows, `check` what the service accepts,
 * `message` the refusal's wording.
 */
export function checkedKind<T>(name: string, check: Check, message: Message) {
  if (!TypeRegistry.Has(name)) {
    TypeRegistry.Set(name, check);
    messages.set(name, message);
  }
  return (keywords: SchemaOptions & Record<string, unknown>) => Type.Unsafe<T>({ ...keywords, [Kind]: name });
}

/** Compiled once per pattern, with the `u` flag: JSON Schema patterns are Unicode-aware. */
const patterns = new Map<string, RegExp>();
function unicodePattern(source: string): RegExp {
  let re = patterns.get(source);
  if (!re) {
    re = new RegExp(source, "u");
    patterns.set(source, re);
  }
  return re;
}

/** Where a TextMatching schema keeps the words of its refusal (a symbol: not in the document). */
const RULE = Symbol("rule");

const textMatching = checkedKind<string>(
  "TextMatching",
  (schema, value) => {
    if (typeof value !== "string") return false;
    const length = charCount(value, schema.maxLength as number);
    return (
      length >= ((schema.minLength as number | undefined) ?? 0) &&
      length <= (schema.maxLength as number) &&
      unicodePattern(schema.pattern as string).test(value)
    );
  },
  (schema, value) =>
    typeof value === "string" ? `Expected ${(schema as { [RULE]?: string })[RULE]}` : "Expected string",
);

/**
 * A string matching `pattern` as JSON Schema reads it (Unicode: `\p{Cc}`, a code point per `.`),
 * of at most `maxLength` characters (code points). TypeBox would compile the pattern without the
 * `u` flag and count UTF-16 units, so a rule with non-ASCII classes is checked here instead.
 * `rule` is what a refusal says is expected.
 */
export function TextMatching(options: {
  pattern: string;
  maxLength: number;
  minLength?: number;
  description: string;
  rule: string;
}) {
  const { rule, ...keywords } = options;
  unicodePattern(keywords.pattern);
  return textMatching({ ...keywords, type: "string", [RULE]: rule });
}
