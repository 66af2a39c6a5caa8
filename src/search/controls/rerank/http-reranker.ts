/**
 * A re-ranking service the operator runs: `POST {url}/rerank` with `{query, documents}` (Cohere,
 * Jina, vLLM, Infinity and others; `texts` for Hugging Face TEI), the model and `top_n` when a
 * model is configured, the key as a bearer. Both answer shapes are read: `{results: [{index,
 * relevance_score}]}` and TEI's `[{index, score}]`. Every failure is a RerankFailed naming why
 * (the search then answers in the fused order); no message holds the key, even one the service
 * echoes.
 */
import { bodyExcerpt, redactUrl, withoutSecret } from "../../../http/upstream-text.ts";
import type { RerankFallback } from "../../../models/rerank.ts";
import type { RerankApi } from "./rerank-settings.ts";
import { type RerankDocument, RerankFailed, type ServiceReranker } from "./reranker.ts";

export interface HttpRerankerOptions {
  url: string;
  model?: string;
  apiKey?: string;
  api: RerankApi;
  top: number;
  budgetMs: number;
  fetch?: typeof fetch;
}

/** A document's text is cut here: a cross-encoder reads a few hundred tokens, and the request stays small. */
export const RERANK_DOCUMENT_CHARS = 2000;

export class HttpReranker implements ServiceReranker {
  readonly by = "http" as const;
  readonly top: number;
  readonly budgetMs: number;
  private readonly endpoint: string;
  private readonly fetchFn: typeof fetch;

  constructor(private readonly opts: HttpRerankerOptions) {
    this.top = opts.top;
    this.budgetMs = opts.budgetMs;
    this.endpoint = `${opts.url.replace(/\/+$/, "")}/rerank`;
    this.fetchFn = opts.fetch ?? fetch;
  }

  async score(query: string, documents: readonly RerankDocument[], signal: AbortSignal): Promise<number[]> {
    const texts = documents.map((d) => d.text.slice(0, RERANK_DOCUMENT_CHARS));
    let text: string;
    let status: number;
    try {
      const response = await this.fetchFn(this.endpoint, {
        method: "POST",
        headers: this.headers(),
        body: JSON.stringify(this.body(query, texts)),
        signal,
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      if (signal.aborted) throw this.fail("timeout", "did not answer within the budget");
      throw this.fail(
        "unreachable",
        `is unreachable: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (status === 429) throw this.fail("rate_limited", `answered HTTP 429: ${bodyExcerpt(text)}`);
    if (status < 200 || status > 299)
      throw this.fail("http_error", `answered HTTP ${status}: ${bodyExcerpt(text)}`);
    return this.scoresOf(text, documents.length);
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    return headers;
  }

  private body(query: string, texts: string[]): Record<string, unknown> {
    if (this.opts.api === "tei") return { query, texts, raw_scores: false };
    const { model } = this.opts;
    return model ? { model, query, documents: texts, top_n: texts.length } : { query, documents: texts };
  }

  /** One finite score per document, each index once: else the answer is not used at all. */
  private scoresOf(text: string, expected: number): number[] {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw this.fail("invalid_answer", `answered a body that is not JSON: ${bodyExcerpt(text)}`);
    }
    const items = Array.isArray(body) ? body : (body as { results?: unknown } | null)?.results;
    if (!Array.isArray(items) || items.length !== expected)
      throw this.fail(
        "invalid_answer",
        `answered ${Array.isArray(items) ? items.length : "no"} scores for ${expected} documents`,
      );
    const scores = new Array<number | undefined>(expected);
    for (const item of items as Array<{ index?: unknown; relevance_score?: unknown; score?: unknown }>) {
      const index = item?.index;
      const score = item?.relevance_score ?? item?.score;
      if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= expected)
        throw this.fail("invalid_answer", `answered a bad index ${JSON.stringify(index)}`);
      if (scores[index] !== undefined) throw this.fail("invalid_answer", `answered index ${index} twice`);
      if (typeof score !== "number" || !Number.isFinite(score))
        throw this.fail("invalid_answer", `answered no score for index ${index}`);
      scores[index] = score;
    }
    return scores as number[];
  }

  private fail(reason: RerankFallback, what: string): RerankFailed {
    const message = `re-ranking service ${redactUrl(this.endpoint)} ${what}`;
    return new RerankFailed(reason, withoutSecret(message, this.opts.apiKey));
  }
}
