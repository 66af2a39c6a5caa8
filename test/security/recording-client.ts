/**
 * An HTTP client for a real server that hands every answer (status, headers, body) to a LeakScan
 * under a label of its own (`#12 POST /admin/tenants`), so the run can name the one answer that
 * issues a secret.
 */
import type { LeakScan } from "./leak-scan.ts";

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: the run reads answers field by field
  body: any;
  /** The label the answer was recorded under. */
  place: string;
}

export interface CallOptions {
  token?: string;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as it is. */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
}

export class RecordingClient {
  private seq = 0;

  constructor(
    readonly base: string,
    private readonly scan: LeakScan,
  ) {}

  get calls(): number {
    return this.seq;
  }

  async call(method: string, path: string, opts: CallOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | Uint8Array | undefined = opts.raw;
    if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      headers["content-type"] ??= "application/json";
    }
    const res = await fetch(this.base + path, { method, headers, body, redirect: "manual" });
    const place = `#${++this.seq} ${method} ${path.split("?")[0]}`;
    const text = await this.scan.recordResponse(place, res);
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: res.status, headers: res.headers, text, body: parsed, place };
  }
}
