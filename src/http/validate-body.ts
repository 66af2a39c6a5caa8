import type { TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { ValidationFailed } from "../errors.ts";

/**
 * Route options that validate the body with our own compiled TypeBox check before Elysia's:
 * Elysia's error builder calls `toString` on hostile values (`{"toString": "x"}`) and throws a
 * TypeError (a 500). The schema stays on the route for the OpenAPI document.
 */
export function validatedBody<S extends TSchema>(schema: S) {
  const check = TypeCompiler.Compile(schema);
  return {
    body: schema,
    transform({ body }: { body: unknown }) {
      if (check.Check(body)) return;
      const errors = [...check.Errors(body)]
        .slice(0, 20)
        .map((e) => ({ path: e.path || "/", message: e.message }));
      const first = errors[0];
      throw new ValidationFailed(
        first ? `body ${first.path}: ${first.message}` : "body failed validation",
        errors,
      );
    },
  };
}
