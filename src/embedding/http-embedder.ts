import { bodyExcerpt, redactUrl, withoutSecret } from "../http/upstream-text.ts";
import type { Embedder } from "./embedder.ts";
import { EmbeddingFailed } from "./embedding-failed.ts";
import { normalizeInPlace, vectorProblem } from "./vector-math.ts";

export interface HttpEmbedderOptions {
  dims: number;
  /** Base URL; `/embeddings` is appended (OpenAI style: `https://api.openai.com/v1`). */
  url: string;
  /** Omitted from the request when unset, for servers that serve a single model. */
  model?: string;
  apiKey?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
  /** Texts per request; OpenAI caps `input` at 2048 items, and smaller batches fail faster. */
  batchSize?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_BATCH_SIZE = 128;

interface EmbeddingItem {
  embedding: unknown;
  index: unknown;
}

// Re-exported: the HTTP error mapping and its tests import it from here.
export { EmbeddingFailed };

/**
 * An OpenAI-compatible embeddings client: `POST {url}/embeddings` with `{model, input}`.
 * Failures are `EmbeddingFailed` errors (the upstream's fault, not the caller's: answered 503 with
 * `Retry-After`, never a 422 or a 500), and their messages never contain the API key, even if the
 * server echoes it.
 */
export class HttpEmbedder implements Embedder {
  readonly kind = "http" as const;
  readonly dims: number;
  private readonly endpoint: string;
  private readonly fetchFn: typeof fetch;
  private readonly timeoutMs: number;
  private readonly batchSize: number;

  constructor(private readonly opts: HttpEmbedderOptions) {
    this.dims = opts.dims;
    this.endpoint = `${opts.url.replace(/\/+$/, "")}/embeddings`;
    this.fetchFn = opts.fetch ?? fetch;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.batchSize = opts.batchSize ?? DEFAULT_BATCH_SIZE;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.batchSize) {
      out.push(...(await this.embedBatch(texts.slice(start, start + this.batchSize))));
    }
    return out;
  }

  private async embedBatch(input: string[]): Promise<Float32Array[]> {
    const response = await this.post(input);
    const text = await response.text().catch(() => "");
    if (!response.ok) throw this.fail(`answered HTTP ${response.status}: ${bodyExcerpt(text)}`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw this.fail(`answered with a body that is not JSON: ${bodyExcerpt(text)}`);
    }
    return this.vectorsOf(body, input.length);
  }

  private async post(input: string[]): Promise<Response> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    const body = JSON.stringify(this.opts.model ? { model: this.opts.model, input } : { input });
    try {
      return await this.fetchFn(this.endpoint, {
        method: "POST",
        headers,
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const timedOut = err instanceof Error && err.name === "TimeoutError";
      throw this.fail(
        timedOut ? `did not answer within ${this.timeoutMs} ms` : `is unreachable: ${errorText(err)}`,
      );
    }
  }

  /** Reorders by `index` (the API does not promise input order) and checks every vector. */
  private vectorsOf(body: unknown, expected: number): Float32Array[] {
    const data = (body as { data?: unknown } | null)?.data;
    if (!Array.isArray(data) || data.length !== expected) {
      throw this.fail(
        `returned ${Array.isArray(data) ? data.length : "no"} embeddings for ${expected} inputs`,
      );
    }
    const out = new Array<Float32Array | undefined>(expected);
    data.forEach((item: EmbeddingItem, position) => {
      const index = typeof item?.index === "number" ? item.index : position;
      if (!Number.isInteger(index) || index < 0 || index >= expected || out[index]) {
        throw this.fail(`returned a bad or repeated index ${String(item?.index)}`);
      }
      out[index] = this.vectorOf(item?.embedding, index);
    });
    return out as Float32Array[];
  }

  private vectorOf(values: unknown, index: number): Float32Array {
    if (!Array.isArray(values)) throw this.fail(`returned no embedding array for input ${index}`);
    const problem = vectorProblem(values as number[], this.dims);
    if (problem) throw this.fail(`returned an embedding for input ${index} that ${problem}`);
    const vec = Float32Array.from(values as number[]);
    if (!normalizeInPlace(vec)) throw this.fail(`returned an all-zero embedding for input ${index}`);
    return vec;
  }

  private fail(what: string): EmbeddingFailed {
    return new EmbeddingFailed(this.redact(`embeddings service ${redactUrl(this.endpoint)} ${what}`));
  }

  private redact(message: string): string {
    return withoutSecret(message, this.opts.apiKey);
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
