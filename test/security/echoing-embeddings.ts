/**
 * A local OpenAI-compatible embeddings server (`POST /embeddings`) for a leak run. It answers only
 * the planted API key, with small deterministic vectors; for an input containing `ECHO_MARKER` it
 * fails the way a careless upstream does, quoting the request's Authorization header in its error.
 */
import type { Server } from "bun";

export const ECHO_MARKER = "please-echo-my-credentials";

export interface EchoingEmbeddings {
  url: string;
  /** Requests answered with vectors, and with the echoed key. */
  hits: { ok: number; echoed: number; refused: number };
  stop(): void;
}

function vector(text: string, dims: number): number[] {
  const out = Array.from(
    { length: dims },
    (_, i) => ((text.charCodeAt(i % Math.max(1, text.length)) || 1) % 7) + i,
  );
  return out.map((v) => v / 10);
}

export function startEchoingEmbeddings(apiKey: string, dims: number): EchoingEmbeddings {
  const hits = { ok: 0, echoed: 0, refused: 0 };
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => {
      const authorization = req.headers.get("authorization") ?? "";
      if (authorization !== `Bearer ${apiKey}`) {
        hits.refused++;
        return Response.json({ error: { message: "invalid api key" } }, { status: 401 });
      }
      const { input } = (await req.json()) as { input: string[] };
      if (input.some((text) => text.includes(ECHO_MARKER))) {
        hits.echoed++;
        return new Response(`upstream failure for request with header "${authorization}"`, { status: 500 });
      }
      hits.ok++;
      return Response.json({ data: input.map((text, index) => ({ index, embedding: vector(text, dims) })) });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, hits, stop: () => server.stop(true) };
}
