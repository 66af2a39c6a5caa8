import { Kind, type SchemaOptions, Type, TypeRegistry } from "@sinclair/typebox";
import { GetErrorFunction, SetErrorFunction } from "@sinclair/typebox/errors";
// Loaded first: it sets TypeBox's error function, which the one below then wraps.
import "./chars.ts";

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
