/**
 * The local embedder on the real USE-lite model, loaded from its npm package (offline). One model
 * is loaded for the file (a fresh one only where a first load is the subject); the load takes
 * about a second.
 */
import { describe, expect, test } from "bun:test";
import { createEmbedder } from "../../src/embedding/create-embedder.ts";
import { EmbeddingFailed } from "../../src/embedding/embedding-failed.ts";
import { LocalEmbedder, MAX_EMBEDDED_CHARS } from "../../src/embedding/local-embedder.ts";
import { LocalModel, MAX_LOCAL_BATCH, sharedLocalModel } from "../../src/embedding/local-model.ts";
import { loadUseLite, type SentenceEncoder, USE_LITE_DIMS } from "../../src/embedding/use-lite.ts";

const QUESTION = "How do I reset my password?";
const PARAPHRASE = "Steps to recover a forgotten login password";
const UNRELATED = "The cafeteria serves lunch at noon";

/** The real model, wrapped to record the size of every batch it is handed and how many overlap. */
interface Spy {
  load: () => Promise<SentenceEncoder>;
  loads: number;
  batches: number[];
  maxInFlight: number;
}

function spyOn(load: () => Promise<SentenceEncoder>): Spy {
  let inFlight = 0;
  const spy: Spy = {
    loads: 0,
    batches: [],
    maxInFlight: 0,
    load: async () => {
      spy.loads++;
      const encoder = await load();
      return {
        embed: async (texts) => {
          spy.batches.push(texts.length);
          spy.maxInFlight = Math.max(spy.maxInFlight, ++inFlight);
          try {
            return await encoder.embed(texts);
          } finally {
            inFlight--;
          }
        },
      };
    },
  };
  return spy;
}

// One load of the real model for the file; each test wraps it in a spy of its own.
const real = loadUseLite();
const loadReal = () => real;

function fresh(cacheEntries?: number): { spy: Spy; embedder: LocalEmbedder } {
  const spy = spyOn(loadReal);
  return { spy, embedder: new LocalEmbedder(new LocalModel({ load: spy.load }), cacheEntries) };
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
const norm = (a: Float32Array) => Math.sqrt(dot(a, a));

describe("local embedder (USE-lite, real model)", () => {
  test("512 dims, unit length, deterministic for the same text", async () => {
    const { embedder } = fresh(0);
    const [a, b] = await embedder.embed([QUESTION, QUESTION]);
    const [again] = await embedder.embed([QUESTION]);
    expect(embedder.kind).toBe("local");
    expect(embedder.dims).toBe(USE_LITE_DIMS);
    expect(a).toHaveLength(512);
    expect(norm(a!)).toBeCloseTo(1, 5);
    expect(Array.from(b!)).toEqual(Array.from(a!));
    expect(Array.from(again!)).toEqual(Array.from(a!));
  });

  test("a paraphrase scores higher than an unrelated sentence", async () => {
    const { embedder } = fresh();
    const [q, p, u] = await embedder.embed([QUESTION, PARAPHRASE, UNRELATED]);
    const paraphrase = dot(q!, p!);
    const unrelated = dot(q!, u!);
    expect(paraphrase).toBeGreaterThan(0.5);
    expect(paraphrase).toBeGreaterThan(unrelated + 0.3);
  });

  test("concurrent first calls share one load of the real model", async () => {
    const spy = spyOn(loadUseLite);
    const embedder = new LocalEmbedder(new LocalModel({ load: spy.load }));
    const results = await Promise.all([
      embedder.embed([QUESTION]),
      embedder.embed([PARAPHRASE]),
      embedder.embed([UNRELATED, QUESTION]),
    ]);
    expect(spy.loads).toBe(1);
    expect(results.map((r) => r.length)).toEqual([1, 1, 2]);
    expect(Array.from(results[2]![1]!)).toEqual(Array.from(results[0]![0]!));
  });

  test("more than 16 texts are split into batches of at most 16, run one at a time, order kept", async () => {
    const { spy, embedder } = fresh(0);
    const texts = Array.from({ length: 40 }, (_, i) => `Note number ${i} about the quarterly billing review`);
    const [all, alone] = await Promise.all([embedder.embed(texts), embedder.embed([texts[37]!])]);
    expect(MAX_LOCAL_BATCH).toBe(16);
    expect(spy.batches.filter((n) => n > 1)).toEqual([16, 16, 8]);
    expect(spy.maxInFlight).toBe(1);
    expect(all).toHaveLength(40);
    expect(dot(all[37]!, alone[0]!)).toBeCloseTo(1, 5);
    expect(dot(all[36]!, alone[0]!)).toBeLessThan(0.9999);
  });

  test("a repeated query is answered from the cache without calling the model", async () => {
    const { spy, embedder } = fresh();
    const [first] = await embedder.embed([QUESTION]);
    const [second] = await embedder.embed([`  ${QUESTION}\n`]);
    expect(spy.batches).toEqual([1]);
    expect(Array.from(second!)).toEqual(Array.from(first!));
    // The caller's copy is its own: scaling it leaves the cached vector as it was.
    second!.fill(0);
    const [third] = await embedder.embed([QUESTION]);
    expect(Array.from(third!)).toEqual(Array.from(first!));
    expect(spy.batches).toEqual([1]);
  });

  test("a text with nothing visible is the zero vector and never reaches the model", async () => {
    const { spy, embedder } = fresh();
    const [empty, blank] = await embedder.embed(["", " \n\t "]);
    expect(empty).toHaveLength(512);
    expect(empty!.every((x) => x === 0)).toBe(true);
    expect(blank!.every((x) => x === 0)).toBe(true);
    expect(spy.loads).toBe(0);
  });

  test(`only the first ${MAX_EMBEDDED_CHARS} characters of a long text are embedded`, async () => {
    const { embedder } = fresh(0);
    const head = "The billing migration moved invoices to the new ledger without duplicates. ".repeat(40);
    const cut = head.slice(0, MAX_EMBEDDED_CHARS);
    const [long, short] = await embedder.embed([
      `${cut}And then something else entirely about gardening.`,
      cut,
    ]);
    expect(Array.from(long!)).toEqual(Array.from(short!));
  });
});

describe("local model loading", () => {
  test("a failed load is an EmbeddingFailed, and the next call tries again", async () => {
    let attempts = 0;
    const model = new LocalModel({
      load: async () => {
        attempts++;
        if (attempts === 1) throw new Error("ENOENT: model.json");
        return real;
      },
    });
    const embedder = new LocalEmbedder(model);
    const failure = await embedder.embed([QUESTION]).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(EmbeddingFailed);
    expect((failure as Error).message).toBe(
      "the local embedding model could not be loaded: ENOENT: model.json",
    );
    const [vec] = await embedder.embed([QUESTION]);
    expect(vec).toHaveLength(512);
    expect(attempts).toBe(2);
  });

  test("a model answering the wrong shape is an EmbeddingFailed, not a stored vector", async () => {
    const short = new LocalEmbedder(
      new LocalModel({ load: async () => ({ embed: async (t) => t.map(() => [1, 2]) }) }),
    );
    await expect(short.embed([QUESTION])).rejects.toThrow("returned 2 numbers, expected 512");
    const missing = new LocalEmbedder(new LocalModel({ load: async () => ({ embed: async () => [] }) }));
    await expect(missing.embed([QUESTION])).rejects.toThrow("returned 0 vectors for 1 texts");
  });

  test("createEmbedder builds the local embedder on the process's one model, at 512 dims only", () => {
    const a = createEmbedder({ kind: "local", dims: 512 });
    expect(a.kind).toBe("local");
    expect(a.dims).toBe(512);
    expect(sharedLocalModel()).toBe(sharedLocalModel());
    expect(() => createEmbedder({ kind: "local", dims: 384 })).toThrow("512 dims, not 384");
  });
});
