import { Elysia } from "elysia";
import { BadRequest, PayloadTooLarge } from "../errors.ts";

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
  return concat(chunks, size);
}

function tooLarge(limit: number): PayloadTooLarge {
  return new PayloadTooLarge(`body exceeds ${limit} bytes`);
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
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

/** Marker body for routes that read their own raw bytes (webhooks): the stream is left unread. */
export const RAW_BODY = Symbol("raw-body");

/**
 * The one body parser: JSON for API routes, capped at `limit`. Webhook routes keep the stream
 * untouched so their handler can read the exact bytes the signature covers, in the check order
 * of CONTRACT §7.
 */
export const bodyPlugin = (limit: number) =>
  new Elysia({ name: "body" }).onParse({ as: "global" }, async ({ request }) => {
    if (isWebhookPath(request.url)) return RAW_BODY;
    const parsed = parseJsonBytes(await readBodyCapped(request, limit));
    // Elysia treats `undefined` as "not handled" and would try its own parser.
    return parsed === undefined ? null : parsed;
  });

function isWebhookPath(url: string): boolean {
  const pathStart = url.indexOf("/", url.indexOf("//") + 2);
  return url.startsWith("/webhooks/", pathStart);
}
