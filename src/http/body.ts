import { Elysia } from "elysia";
import { BadRequest, PayloadTooLarge } from "../errors/domain-errors.ts";
import { concatBytes } from "../runtime/bytes.ts";

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads a request body into bytes, refusing more than `limit` bytes without buffering them:
 * a declared Content-Length over the limit is refused before reading, a chunked body as soon as
 * it crosses the limit.
 */
export async function readBodyCapped(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > limit) throw tooLarge(limit);
  if (!request.body) return new Uint8Array(0);
  if (Number.isFinite(declared)) {
    // A declared length within the limit: one read, no stream reader (the common, fast case).
    // Checked again after reading, in case the declaration undersold the body.
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength > limit) throw tooLarge(limit);
    return bytes;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return concatBytes(chunks, size);
}

function tooLarge(limit: number): PayloadTooLarge {
  return new PayloadTooLarge(`body exceeds ${limit} bytes`);
}

/** Parses JSON bytes; empty → undefined (the schema then says the body is required). */
export function parseJsonBytes(bytes: Uint8Array): unknown {
  if (bytes.byteLength === 0) return undefined;
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw new BadRequest("body is not valid UTF-8");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new BadRequest("body is not valid JSON");
  }
}

/** The media type a request declares for its body, lower case, parameters dropped; undefined if none. */
export function declaredMediaType(request: Request): string | undefined {
  const header = request.headers.get("content-type");
  return header === null ? undefined : (header.split(";", 1)[0] ?? "").trim().toLowerCase();
}

/** `application/json` or a structured `+json` type (RFC 6839): what a JSON route reads. */
export function isJsonMediaType(type: string): boolean {
  return type === "application/json" || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(type);
}

/**
 * Whether an API route reads this request's body as JSON: it declares a JSON type, or none (curl
 * without `-H`), or it has no body at all. Any other declared type (a form, multipart, text/plain) is
 * left unread, and a route that takes a body refuses it with a 415 naming `application/json`.
 */
export function readsAsJson(request: Request): boolean {
  const type = declaredMediaType(request);
  if (type === undefined || isJsonMediaType(type)) return true;
  return request.body === null || request.headers.get("content-length") === "0";
}

/** A declared media type as a 415 may echo it: a well-formed `type/subtype`, else "(malformed)". */
export function echoedMediaType(request: Request): string {
  const type = declaredMediaType(request) ?? "";
  return /^[a-z0-9!#$&^_.+-]{1,64}\/[a-z0-9!#$&^_.+-]{1,64}$/.test(type) ? type : "(malformed)";
}

/** Marker body for routes that read their own raw bytes (webhooks): the stream is left unread. */
export const RAW_BODY = Symbol("raw-body");

/**
 * Marker body of a request to an API route whose declared media type no API route reads (a form,
 * multipart, text/plain): left unread; a route that takes a body refuses it (415).
 */
export const FOREIGN_BODY = Symbol("foreign-body");

/** Requests whose body was the JSON text `null`, which the reader answers as it does an empty body. */
const jsonNulls = new WeakSet<Request>();

/** The JSON body of an API request, capped at `limit`; an empty body is `null` (handled, absent). */
export async function readJsonBody(request: Request, limit: number): Promise<unknown> {
  const value = parseJsonBytes(await readBodyCapped(request, limit));
  if (value === null) jsonNulls.add(request);
  return value ?? null;
}

/** The body was `null` itself, not absent: a route whose body is optional refuses it as a non-object. */
export function sentJsonNull(request: Request): boolean {
  return jsonNulls.has(request);
}

/**
 * An HTML form's fields (`application/x-www-form-urlencoded`), capped at `limit`: the first value of
 * each name, in an object without a prototype (a field named `__proto__` is just a field).
 */
export async function readFormBody(request: Request, limit: number): Promise<Record<string, string>> {
  const type = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded")
    throw new BadRequest("expected an HTML form (application/x-www-form-urlencoded)");
  let text: string;
  try {
    text = decoder.decode(await readBodyCapped(request, limit));
  } catch (error) {
    if (error instanceof PayloadTooLarge) throw error;
    throw new BadRequest("body is not valid UTF-8");
  }
  const fields: Record<string, string> = Object.create(null);
  for (const [name, value] of new URLSearchParams(text)) if (!(name in fields)) fields[name] = value;
  return fields;
}

/**
 * Who reads which body. Webhook routes keep the stream untouched so their handler can read the
 * exact bytes the signature covers, in the check order of CONTRACT §7. Authenticated routes read
 * theirs in the auth plugin, after the caller is known, so an anonymous request's bytes are never
 * parsed. Anything else (the dashboard's sign-in form) names its own parser; this hook only makes
 * sure no route falls through to an uncapped default read.
 */
export const bodyPlugin = () =>
  new Elysia({ name: "body" }).onParse({ as: "global" }, ({ request }) =>
    isWebhookPath(request.url) ? RAW_BODY : undefined,
  );

function isWebhookPath(url: string): boolean {
  const pathStart = url.indexOf("/", url.indexOf("//") + 2);
  return url.startsWith("/webhooks/", pathStart);
}
