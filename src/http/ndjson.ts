import { PayloadTooLarge, ValidationFailed } from "../errors/domain-errors.ts";
import { concatBytes } from "../runtime/bytes.ts";

const decoder = new TextDecoder("utf-8", { fatal: true });

/** The media type of newline-delimited JSON (a tenant's export, the body of its import). */
export const NDJSON = "application/x-ndjson";

/** Whether a request's body is NDJSON: such a body is streamed by its route, never read whole. */
export function isNdjson(request: Request): boolean {
  const type = request.headers.get("content-type");
  return type?.split(";", 1)[0]?.trim().toLowerCase() === NDJSON;
}
const NEWLINE = 0x0a;

export interface NdjsonLine {
  /** 1-based, blank lines included: what an editor shows. */
  number: number;
  text: string;
}

export interface NdjsonLimits {
  /** A line longer than this is refused (413) before more of it is read. */
  maxLineBytes: number;
  /** A body longer than this is refused (413). */
  maxBodyBytes: number;
}

/**
 * The lines of an NDJSON body as they arrive, one at a time: nothing is held but the line being
 * read, so a body of any size is read in constant memory. A trailing `\r` is dropped; blank lines
 * are skipped. Leaving the loop early cancels the rest of the body.
 */
export async function* ndjsonLines(
  body: ReadableStream<Uint8Array>,
  limits: NdjsonLimits,
): AsyncGenerator<NdjsonLine> {
  const reader = body.getReader();
  let parts: Uint8Array[] = [];
  let partBytes = 0;
  let number = 0;
  let total = 0;
  let finished = false;
  const take = (piece: Uint8Array): NdjsonLine | undefined => {
    number++;
    const bytes = parts.length === 0 ? piece : concatBytes([...parts, piece], partBytes + piece.byteLength);
    parts = [];
    partBytes = 0;
    const text = decode(bytes, number);
    return text.trim() === "" ? undefined : { number, text };
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limits.maxBodyBytes) throw new PayloadTooLarge(`body exceeds ${limits.maxBodyBytes} bytes`);
      let start = 0;
      for (;;) {
        const end = value.indexOf(NEWLINE, start);
        const piece = value.subarray(start, end < 0 ? value.byteLength : end);
        if (partBytes + piece.byteLength > limits.maxLineBytes)
          throw new PayloadTooLarge(`line ${number + 1} is longer than ${limits.maxLineBytes} bytes`);
        if (end < 0) {
          if (piece.byteLength > 0) parts.push(piece);
          partBytes += piece.byteLength;
          break;
        }
        const line = take(piece);
        if (line) yield line;
        start = end + 1;
      }
    }
    if (partBytes > 0) {
      const line = take(new Uint8Array(0));
      if (line) yield line;
    }
    finished = true;
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

function decode(bytes: Uint8Array, number: number): string {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw new ValidationFailed(`line ${number}: not valid UTF-8`, [
      { path: "/", message: `line ${number}: not valid UTF-8` },
    ]);
  }
  return text.endsWith("\r") ? text.slice(0, -1) : text;
}
