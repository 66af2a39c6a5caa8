import type { TSchema } from "@sinclair/typebox";

/** Elysia's per-schema switch (what its `t.NoValidate` sets): the response is not checked. */
export const NO_VALIDATE_KEY = "noValidate";

/**
 * A response schema that is documented (the OpenAPI document is generated from it as from any other)
 * but not checked against each answer. For the routes answering stored entries: each was checked
 * when it was written, so a per-request check of every field (a strict object, date-time formats,
 * ~1 µs an entry) re-proves what is known. A copy is marked; the shared model schema is left as it
 * is. The suite's OpenAPI conformance check (test/helpers/openapi-conformance.ts) still holds every
 * answer the tests receive to the document, and the document's transform drops the mark.
 */
export function unchecked<T extends TSchema>(schema: T): T {
  return { ...schema, [NO_VALIDATE_KEY]: true };
}
