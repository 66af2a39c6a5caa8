/**
 * A local re-ranking service (`POST /rerank` on 127.0.0.1, a free port) that holds every request
 * until the test answers it: the test reads what was sent (query, documents, model, key) and
 * answers with any status and body, or never, so a search's budget can run out while it waits.
 */
import type { Server } from "bun";

export interface RerankRequest {
  path: string;
  authorization: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: tests read the request body field by field
  body: any;
  /** Answers the held request: a JSON value is sent as JSON, a string as it is. */
  answer(status: number, body: unknown): void;
}

export interface FakeReranker {
  url: string;
  /** Requests received so far. */
  requests: number;
  /** The next request received (or the oldest one not taken yet). */
  next(): Promise<RerankRequest>;
  stop(): void;
}

export function startFakeReranker(): FakeReranker {
  const arrived: RerankRequest[] = [];
  const waiting: Array<(request: RerankRequest) => void> = [];
  const unanswered = new Set<() => void>();
  const fake: FakeReranker = {
    url: "",
    requests: 0,
    next: () => {
      const first = arrived.shift();
      return first ? Promise.resolve(first) : new Promise((resolve) => waiting.push(resolve));
    },
    stop: () => {
      for (const release of unanswered) release();
      server.stop(true);
    },
  };
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => {
      fake.requests++;
      const body = await req.json();
      return new Promise<Response>((resolve) => {
        const release = () => resolve(new Response("stopped", { status: 503 }));
        unanswered.add(release);
        const request: RerankRequest = {
          path: new URL(req.url).pathname,
          authorization: req.headers.get("authorization"),
          body,
          answer: (status, answer) => {
            unanswered.delete(release);
            const text = typeof answer === "string" ? answer : JSON.stringify(answer);
            resolve(new Response(text, { status, headers: { "content-type": "application/json" } }));
          },
        };
        const taker = waiting.shift();
        if (taker) taker(request);
        else arrived.push(request);
      });
    },
  });
  fake.url = `http://127.0.0.1:${server.port}`;
  return fake;
}
