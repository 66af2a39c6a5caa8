import type { TSchema } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import { ValidationFailed } from "../errors/domain-errors.ts";
import { faultMessage } from "./allowed-values.ts";

/**
 * Route options for a body checked by our own compiled TypeBox check before Elysia's: Elysia's error
 * builder throws a TypeError (a 500) on hostile values (`{"content": {"toString": "x"}}`). The
 * schema stays on the route for the OpenAPI document and Elysia's own check (which then only sees
 * valid bodies). The check runs in the `checkBody` macro of the auth plugin, after the caller is
 * resolved: spread these options after `auth` in a route's options.
 */
export function validatedBody<S extends TSchema>(schema: S) {
  return { body: schema, checkBody: TypeCompiler.Compile(schema) as TypeCheck<TSchema> };
}

/**
 * Throws ValidationFailed naming the first faults (by JSON pointer) when `body` fails `check`; a fault
 * of a closed set (a union of literals, an enum) lists the values allowed. MCP tools check their
 * arguments with it too, so a tool's refusal reads as the HTTP route's.
 */
export function checkBody(check: TypeCheck<TSchema>, body: unknown): void {
  if (check.Check(body)) return;
  const errors = [...check.Errors(body)]
    .slice(0, 20)
    .map((e) => ({ path: e.path || "/", message: faultMessage(e.schema, e.value, e.message) }));
  const first = errors[0];
  throw new ValidationFailed(
    first ? `body ${first.path}: ${first.message}` : "body failed validation",
    errors,
  );
}
