/**
 * Sends a generated request to the real server and reads its answer within bounds: a deadline for
 * the whole exchange, a cap on the body read, and an event stream read for its first chunk only
 * (a stream never ends by itself). Raw requests go over a bare socket.
 */

export interface Answer {
  status: number;
  /** Every header as `name: value` lines. */
  headers: string;
  contentType: string;
  body: Uint8Array;
  /** The exchange did not end within the deadline. */
  timedOut: boolean;
  /** The connection failed or was closed before an answer (the server may refuse to read a body). */
  transportError?: string;
}

const BODY_CAP = 4 * 1024 * 1024;
const STREAM_PEEK_MS = 300;
export const DEADLINE_MS = 20_000;

export interface Outgoing {
  method: string;
  headers: Record<string, string>;
  body?: Uint8Array;
}

export async function sendFetch(url: string, out: Outgoing): Promise<Answer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), DEADLINE_MS);
  try {
    const res = await fetch(url, {
      method: out.method,
      headers: out.headers,
      body: out.body,
      signal: controller.signal,
      redirect: "manual",
      decompress: false,
    } as RequestInit);
    const contentType = res.headers.get("content-type") ?? "";
    const body = contentType.startsWith("text/event-stream") ? await peek(res) : await readCapped(res);
    return { status: res.status, headers: headerLines(res.headers), contentType, body, timedOut: false };
  } catch (error) {
    const timedOut = controller.signal.aborted;
    return {
      status: 0,
      headers: "",
      contentType: "",
      body: new Uint8Array(),
      timedOut,
      transportError: String(error),
    };
  } finally {
    clearTimeout(timer);
  }
}

function headerLines(headers: Headers): string {
  return [...headers].map(([k, v]) => `${k}: ${v}`).join("\n");
}

async function readCapped(res: Response): Promise<Uint8Array> {
  if (!res.body) return new Uint8Array();
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
    if (size >= BODY_CAP) {
      await reader.cancel();
      break;
    }
  }
  return Buffer.concat(chunks);
}

/** The first chunk of a stream (or nothing within a short wait), then the stream is cancelled. */
async function peek(res: Response): Promise<Uint8Array> {
  const reader = res.body!.getReader();
  const first = await Promise.race([
    reader.read().then((r) => r.value ?? new Uint8Array()),
    Bun.sleep(STREAM_PEEK_MS).then(() => new Uint8Array()),
  ]);
  await reader.cancel().catch(() => undefined);
  return first;
}

/** A raw request over a bare socket; the answer is parsed from the bytes read until the server closes. */
export async function sendRaw(host: string, port: number, bytes: Uint8Array): Promise<Answer> {
  const received: Uint8Array[] = [];
  let socket: { end(): void } | undefined;
  let timer: Timer | undefined;
  const outcome = await new Promise<{ timedOut: boolean; error?: string }>((resolve) => {
    timer = setTimeout(() => {
      socket?.end();
      resolve({ timedOut: true });
    }, DEADLINE_MS);
    Bun.connect({
      hostname: host,
      port,
      socket: {
        open(s) {
          s.write(bytes);
          s.flush();
        },
        data(_s, data) {
          received.push(new Uint8Array(data));
        },
        close() {
          resolve({ timedOut: false });
        },
        error(_s, error) {
          resolve({ timedOut: false, error: String(error) });
        },
      },
    }).then(
      (s) => {
        socket = s;
      },
      (error) => resolve({ timedOut: false, error: String(error) }),
    );
  });
  clearTimeout(timer);
  return parseRaw(Buffer.concat(received), outcome.timedOut, outcome.error);
}

function parseRaw(all: Buffer, timedOut: boolean, error?: string): Answer {
  const text = all.toString("latin1");
  let start = 0;
  for (;;) {
    const end = text.indexOf("\r\n\r\n", start);
    const head = end < 0 ? text.slice(start) : text.slice(start, end);
    const [statusLine = "", ...lines] = head.split("\r\n");
    const status = Number(/^HTTP\/\d(?:\.\d)? (\d{3})/.exec(statusLine)?.[1] ?? 0);
    // An interim answer (100 Continue) is followed by the final one.
    if (status >= 100 && status < 200 && end >= 0 && end + 4 < text.length) {
      start = end + 4;
      continue;
    }
    const contentType =
      lines
        .find((l) => /^content-type:/i.test(l))
        ?.slice(13)
        .trim() ?? "";
    return {
      status,
      headers: lines.join("\n"),
      contentType,
      body: end < 0 ? new Uint8Array() : all.subarray(end + 4),
      timedOut: timedOut && status === 0,
      transportError: status === 0 ? (error ?? "no answer") : undefined,
    };
  }
}
