/**
 * A sentence model (what USE-lite is to the `local`/`tiered` embedders) that asks the fake
 * embeddings service at `url` (embeddings-service.ts), one request a call as the model takes them:
 * the test holds it back, serves or fails it, in process or in a child server (tiered-server.ts).
 */
import type { SentenceEncoder } from "../../src/embedding/use-lite.ts";

/** A sentence model that asks the fake service at `url` (one request a call, as the model takes them). */
export function serviceModel(url: string): SentenceEncoder {
  return {
    async embed(texts) {
      const res = await fetch(`${url}/embeddings`, {
        method: "POST",
        body: JSON.stringify({ input: texts }),
      });
      if (!res.ok) throw new Error(`the fake model answered ${res.status}`);
      const { data } = (await res.json()) as { data: Array<{ embedding: number[] }> };
      return data.map((d) => d.embedding);
    },
  };
}
