/**
 * A local OpenAI-compatible embeddings service (`POST /embeddings` on 127.0.0.1) that a test
 * controls: it serves hashed vectors of `dims` dimensions (texts sharing words are close), fails
 * with a 503, or holds every request until released, so a test can see what a write does while
 * its vector is not made yet.
 */
import type { Server } from "bun";
import { HashEmbedder } from "../../src/embedding/hash-embedder.ts";

export type EmbeddingsMode = "serve" | "fail" | "hold";

export interface FakeEmbeddings {
  url: string;
  /**
   * `serve` (the default), `fail` (503) or `hold` (answered once the mode changes), for every
   * request or only those holding a text `only` accepts (a search's query is then still served).
   */
  setMode(mode: EmbeddingsMode, only?: (text: string) => boolean): void;
  /** Texts of the requests received, in order (held and failed ones too). */
  texts: string[];
  /** Requests received. */
  requests: number;
  /** Resolves once a request is received (the next one, or the nth one counting from the start). */
  received(n?: number): Promise<void>;
  stop(): void;
}

export function startFakeEmbeddings(dims: number): FakeEmbeddings {
  const hash = new HashEmbedder(dims);
  let mode: EmbeddingsMode = "serve";
  let applies: (text: string) => boolean = () => true;
  const held: Array<() => void> = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const fake: FakeEmbeddings = {
    url: "",
    texts: [],
    requests: 0,
    setMode(next, only = () => true) {
      mode = next;
      applies = only;
      if (next !== "hold") for (const release of held.splice(0)) release();
    },
    received(n = fake.requests + 1) {
      if (fake.requests >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
    stop: () => {
      for (const release of held.splice(0)) release();
      server.stop(true);
    },
  };
  const answer = (input: string[], failing: boolean): Response => {
    if (failing) return Response.json({ error: { message: "overloaded" } }, { status: 503 });
    const data = input.map((text, index) => ({ index, embedding: Array.from(hash.embedSync(text)) }));
    return Response.json({ data });
  };
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => {
      const { input } = (await req.json()) as { input: string[] };
      fake.texts.push(...input);
      fake.requests++;
      for (const w of waiters.filter((w) => fake.requests >= w.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      const concerned = input.some((text) => applies(text));
      if (concerned && mode === "hold") await new Promise<void>((resolve) => held.push(resolve));
      return answer(input, concerned && mode === "fail");
    },
  });
  fake.url = `http://127.0.0.1:${server.port}`;
  return fake;
}
