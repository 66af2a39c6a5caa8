import type { TSchema } from "@sinclair/typebox";

/**
 * The vendor key naming the media type a response body is sent as, when it is not the
 * `application/json` Elysia's generator assumes. It is a plain annotation: validators ignore it, and
 * the OpenAPI document's one transform (src/http/openapi.ts) files the schema under that media type
 * (a union's members each under their own), then drops the key.
 */
export const MEDIA_TYPE_KEY = "x-media-type";

/** `schema`, sent as `mediaType` (e.g. `application/problem+json`, `text/xml`, `text/html`). */
export function sentAs<T extends TSchema>(mediaType: string, schema: T): T {
  return { ...schema, [MEDIA_TYPE_KEY]: mediaType };
}

/** The body parsers Elysia and its OpenAPI generator know by name. */
export type ParserName = "json" | "urlencoded" | "text" | "formdata" | "arrayBuffer";

/**
 * A route's (or a macro's) `parse` whose body the OpenAPI generator can describe. `reader` parses,
 * and must always answer (a value other than undefined) or throw; the parser named after it is then
 * never reached by Elysia, but tells the generator the body's media type, which it cannot see in a
 * function (it would document the body with no media type, and so no schema).
 */
export function parseAs<R>(name: ParserName, reader: R): R[] {
  // Elysia runs a parser name in a parse list; its macro type admits functions only.
  return [reader, name] as unknown as R[];
}
