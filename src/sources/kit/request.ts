/**
 * Reading a webhook request: headers (with the platforms' own aliases), bearer tokens and bodies.
 * Body readers throw BadRequest with a message that never quotes the body (it may hold secrets).
 */
import { BadRequest } from "../../errors/domain-errors.ts";

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

/** No real webhook nests this deep; deeper bodies only make later serialisation slow or overflow. */
export const MAX_JSON_DEPTH = 64;

/** The nesting depth of a parsed JSON value, without recursion (the value may be hostile). */
function exceedsDepth(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [node, depth] = item;
    if (typeof node !== "object" || node === null) continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

/** The body parsed as JSON (any JSON value). */
export function parseJsonBody(raw: Uint8Array): unknown {
  const text = decodeUtf8(raw);
  if (text.trim() === "") throw new BadRequest("body is empty; JSON expected");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // JSON.parse also throws RangeError on absurd nesting: still the sender's fault.
    throw new BadRequest("body is not valid JSON");
  }
  if (exceedsDepth(value, MAX_JSON_DEPTH))
    throw new BadRequest(`body nests deeper than ${MAX_JSON_DEPTH} levels`);
  return value;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Linear's `webhookTimestamp` (epoch ms), read from the raw body for the signature check's time
 * window; undefined when the body is not JSON or has none.
 */
export function webhookTimestamp(req: { rawBody: Uint8Array }): string | undefined {
  try {
    const body: unknown = JSON.parse(new TextDecoder().decode(req.rawBody));
    const stamp = isRecord(body) ? body.webhookTimestamp : undefined;
    return typeof stamp === "number" || typeof stamp === "string" ? String(stamp) : undefined;
  } catch {
    return undefined;
  }
}
