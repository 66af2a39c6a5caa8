import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { HttpEmbedder } from "../../src/embedding/http-embedder.ts";

const API_KEY = "sk-test-5ecr3t-key";
const DIMS = 4;

interface Seen {
  path: string;
  authorization: string | null;
  body: { model?: string; input: string[] };
}

/** What the fake answers next: a function of the request body. */
type Behaviour = (body: Seen["body"]) => Response | Promise<Response>;

const seen: Seen[] = [];
let behaviour: Behaviour = () => new Response("unset", { status: 500 });

/** A well-behaved OpenAI-style answer, listed in reverse order to exercise reordering by index. */
function embeddings(body: Seen["body"], dims = DIMS): Response {
  const data = body.input.map((text, index) => ({
    object: "embedding",
    index,
    embedding: Array.from({ length: dims }, (_, i) => (i === index % dims ? text.length : 0)),
  }));
  return Response.json({ object: "list", data: data.reverse(), model: body.model });
}

const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    const body = (await req.json()) as Seen["body"];
    seen.push({ path: new URL(req.url).pathname, authorization: req.headers.get("authorization"), body });
    return behaviour(body);
  },
});
const baseUrl = `http://127.0.0.1:${server.port}/v1`;

afterAll(() => server.stop(true));
beforeEach(() => {
  seen.length = 0;
});

function embedder(overrides: Partial<ConstructorParameters<typeof HttpEmbedder>[0]> = {}): HttpEmbedder {
  return new HttpEmbedder({
    dims: DIMS,
    url: `${baseUrl}/`,
    model: "tiny-embed",
    apiKey: API_KEY,
    ...overrides,
  });
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  return err as Error;
}

describe("HttpEmbedder", () => {
  test("posts {model, input} to {url}/embeddings with the bearer key and returns unit vectors in input order", async () => {
    behaviour = (body) => embeddings(body);
    const vectors = await embedder().embed(["ab", "abc", "abcd"]);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toEqual({
      path: "/v1/embeddings",
      authorization: `Bearer ${API_KEY}`,
      body: { model: "tiny-embed", input: ["ab", "abc", "abcd"] },
    });
    // Input i has its only non-zero value at position i, so order survives the reversed answer.
    expect(vectors.map((v) => Array.from(v))).toEqual([
      [1, 0, 0, 0],
      [0, 1, 0, 0],
      [0, 0, 1, 0],
    ]);
  });

  test("sends no Authorization header and no model when they are not configured", async () => {
    behaviour = (body) => embeddings(body);
    await embedder({ apiKey: undefined, model: undefined }).embed(["x"]);
    expect(seen[0]?.authorization).toBeNull();
    expect(seen[0]?.body).toEqual({ input: ["x"] });
  });

  test("splits large inputs into batches and keeps the overall order", async () => {
    behaviour = (body) => embeddings(body);
    const texts = ["a", "bb", "ccc", "dddd", "eeeee"];
    const vectors = await embedder({ batchSize: 2 }).embed(texts);
    expect(seen.map((s) => s.body.input)).toEqual([["a", "bb"], ["ccc", "dddd"], ["eeeee"]]);
    expect(vectors).toHaveLength(5);
    expect(Array.from(vectors[4]!)).toEqual([1, 0, 0, 0]);
  });

  test("no texts, no request", async () => {
    expect(await embedder().embed([])).toEqual([]);
    expect(seen).toHaveLength(0);
  });

  test("vectors of the wrong size are an error", async () => {
    behaviour = (body) => embeddings(body, DIMS + 1);
    const err = await failure(embedder().embed(["ab"]));
    expect(err.message).toContain("has 5 numbers, expected 4");
  });

  test("a missing embedding for some input is an error", async () => {
    behaviour = () => Response.json({ data: [] });
    expect((await failure(embedder().embed(["ab"]))).message).toContain("returned 0 embeddings for 1 inputs");
  });

  test("an HTTP error is reported with its status, and never with the API key even if the server echoes it", async () => {
    behaviour = () => new Response(`invalid key ${API_KEY} for this project`, { status: 500 });
    const err = await failure(embedder().embed(["ab"]));
    expect(err.message).toContain("HTTP 500");
    expect(err.message).toContain("invalid key [redacted]");
    expect(err.message).not.toContain(API_KEY);
    expect(String(err.stack)).not.toContain(API_KEY);
  });

  test("a body that is not JSON is an error", async () => {
    behaviour = () => new Response("<html>gateway</html>", { status: 200 });
    expect((await failure(embedder().embed(["ab"]))).message).toContain("not JSON");
  });

  test("a server that does not answer in time is an error", async () => {
    behaviour = () => new Promise<Response>(() => {});
    const err = await failure(embedder({ timeoutMs: 50 }).embed(["ab"]));
    expect(err.message).toContain("did not answer within 50 ms");
  });

  test("an unreachable server is an error that names the endpoint but not the key", async () => {
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const port = closed.port;
    const url = `http://user:${API_KEY}@127.0.0.1:${port}`;
    closed.stop(true);
    const err = await failure(embedder({ url }).embed(["ab"]));
    expect(err.message).toContain("unreachable");
    expect(err.message).toContain(`127.0.0.1:${port}/embeddings`);
    expect(err.message).not.toContain(API_KEY);
  });
});
