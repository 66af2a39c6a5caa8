import type { TSchema } from "@sinclair/typebox";

/**
 * The vendor key naming a schema for the OpenAPI document: every schema so marked is written once,
 * under `components.schemas.<name>`, and each place it occurs refers to it (`$ref`). Like
 * `x-media-type` it is a plain annotation that validators ignore; the document's transform
 * (src/http/openapi-components.ts) consumes it. A mark rather than `$id`: TypeBox resolves `$id`s
 * as references, which a schema shared by many routes and unions must not become.
 */
export const SCHEMA_NAME_KEY = "x-schema-name";

/** Names must be valid `components.schemas` keys (OpenAPI: `^[a-zA-Z0-9._-]+$`). */
const NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/** `schema`, named `name` in the OpenAPI document (e.g. `Problem`, `FactInput`, `SearchResults`). */
export function named<T extends TSchema>(name: string, schema: T): T {
  if (!NAME.test(name)) throw new Error(`schema name ${JSON.stringify(name)} is not a plain identifier`);
  return { ...schema, [SCHEMA_NAME_KEY]: name };
}
