/**
 * Reading a webhook request: headers (with the platforms' own aliases), bearer tokens and bodies.
 * Body readers throw BadRequest with a message that never quotes the body (it may hold secrets).
 */
import { BadRequest } from "../errors.ts";

/** The first of the named headers that is present and not blank. */
export function firstHeader(headers: Headers, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = headers.get(name)?.trim();
    if (value) return value;
  }
  return undefined;
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(headers: Headers): string | undefined {
  const match = /^Bearer[ \t]+(\S+)\s*$/i.exec(headers.get("authorization") ?? "");
  return match?.[1];
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** The body as text; invalid UTF-8 is a bad request rather than silently replaced characters. */
export function decodeUtf8(raw: Uint8Array): string {
  try {
    return utf8.decode(raw);
  } catch {
    throw new BadRequest("body is not valid UTF-8");
  }
}

/** The body parsed as JSON (any JSON value). */
export function parseJsonBody(raw: Uint8Array): unknown {
  const text = decodeUtf8(raw);
  if (text.trim() === "") throw new BadRequest("body is empty; JSON expected");
  try {
    return JSON.parse(text);
  } catch {
    // JSON.parse also throws RangeError on absurd nesting: still the sender's fault.
    throw new BadRequest("body is not valid JSON");
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
