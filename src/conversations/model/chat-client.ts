/**
 * An OpenAI-compatible chat completions client for the model extractor: `POST {url}/chat/completions`
 * with the fixed prompt and `response_format: {type: "json_object"}`, answering the JSON object the
 * model wrote. Two ways to fail: the service (unreachable, a timeout, 429, 5xx, any non-2xx: worth
 * retrying later, `ModelUnavailable`) or the answer (not JSON, not the shape asked for:
 * `ModelAnswerBad`, the same turns would fail alike). Messages never contain the key.
 */
import { retryAfterOf } from "../../connectors/retry-after.ts";
import { bodyExcerpt, redactUrl, withoutSecret } from "../../http/upstream-text.ts";
import type { Clock } from "../../runtime/clock.ts";

export interface ChatClientOptions {
  url: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
  /** Times the call's timeout (a test's manual clock times out a held call without waiting). */
  clock: Clock;
  fetch?: typeof fetch;
}

export interface ChatMessage {
  role: "system" | "user";
  content: string;
}

/** The service did not answer usefully: the work stays queued and is tried again after a wait. */
export class ModelUnavailable extends Error {
  constructor(
    message: string,
    /** The wait a 429's or 503's `Retry-After` asked for (bounded), which replaces the backoff's. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** The service answered, but not with a JSON object: the work is counted failed and let go. */
export class ModelAnswerBad extends Error {}

export class ChatClient {
  private readonly endpoint: string;
  private readonly fetchFn: typeof fetch;

  constructor(private readonly opts: ChatClientOptions) {
    this.endpoint = `${opts.url.replace(/\/+$/, "")}/chat/completions`;
    this.fetchFn = opts.fetch ?? fetch;
  }

  get model(): string {
    return this.opts.model;
  }

  /** The JSON object the model answered to `messages`. */
  async complete(messages: ChatMessage[]): Promise<Record<string, unknown>> {
    const response = await this.post(messages);
    const text = await response.text().catch(() => "");
    if (!response.ok)
      throw new ModelUnavailable(
        this.say(`answered HTTP ${response.status}: ${bodyExcerpt(text)}`),
        retryAfterOf(response, this.opts.clock.now()),
      );
    const content = contentOf(parse(text));
    if (content === undefined)
      throw new ModelAnswerBad(this.say(`answered without a message content: ${bodyExcerpt(text)}`));
    // Some models wrap the object in a fenced block even when asked for JSON.
    const answer = parse(content.replace(/^\s*```(?:json)?\s*|\s*```\s*$/g, ""));
    if (answer === null || typeof answer !== "object" || Array.isArray(answer))
      throw new ModelAnswerBad(
        this.say(`answered a content that is not a JSON object: ${bodyExcerpt(content)}`),
      );
    return answer as Record<string, unknown>;
  }

  private async post(messages: ChatMessage[]): Promise<Response> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    const body = JSON.stringify({
      model: this.opts.model,
      messages,
      temperature: 0,
      response_format: { type: "json_object" },
    });
    const abort = new AbortController();
    let timedOut = false;
    const timer = this.opts.clock.setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, this.opts.timeoutMs);
    try {
      return await this.fetchFn(this.endpoint, { method: "POST", headers, body, signal: abort.signal });
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new ModelUnavailable(
        this.say(timedOut ? `did not answer within ${this.opts.timeoutMs} ms` : `is unreachable: ${why}`),
      );
    } finally {
      timer.cancel();
    }
  }

  private say(what: string): string {
    return withoutSecret(`chat completions ${redactUrl(this.endpoint)} ${what}`, this.opts.apiKey);
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `choices[0].message.content` of a chat completion, when it is a string. */
function contentOf(body: unknown): string | undefined {
  const choices = (body as { choices?: unknown } | null | undefined)?.choices;
  const first = Array.isArray(choices) ? (choices[0] as { message?: { content?: unknown } }) : undefined;
  const content = first?.message?.content;
  return typeof content === "string" ? content : undefined;
}
