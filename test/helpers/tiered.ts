/**
 * The default embedder (`tiered`) under test, in process or in a child server: its sentence model
 * is the fake embeddings service (test/fakes/embeddings-service.ts) at 512 dimensions, which the
 * test holds back, serves or fails, and whose vector of a text (hashed) is told at once from the
 * static table's. Helpers say which tier an entry's stored vector is and search by meaning.
 */
import { afterAll, beforeAll, expect } from "bun:test";
import { HashEmbedder } from "../../src/embedding/hash-embedder.ts";
import { LocalModel } from "../../src/embedding/local-model.ts";
import { StaticEmbedder } from "../../src/embedding/static-embedder.ts";
import { upgradedVector } from "../../src/embedding/tiered-embedder.ts";
import type { VectorTier } from "../../src/embedding/vector-tiers.ts";
import { type FakeEmbeddings, startFakeEmbeddings } from "../fakes/embeddings-service.ts";
import { serviceModel } from "../fakes/service-model.ts";
import { type Harness, startHarness } from "./harness.ts";
import { httpCall } from "./server-process.ts";

export const MODEL_DIMS = 512;

/** The LocalModel a harness takes (`localModel`): the fake service. */
export const serviceLocalModel = (fake: FakeEmbeddings): LocalModel =>
  new LocalModel({ load: async () => serviceModel(fake.url) });

/** A runtime on the default embedder (the variable unset) unless `env` names another; its model the fake service. */
export function tieredHarness(
  fake: FakeEmbeddings,
  opts: { env?: Record<string, string>; dataDir?: string } = {},
): Promise<Harness> {
  const env = { MEMORY_RUNTIME_EMBEDDER: "", ...opts.env };
  return startHarness({ ...opts, env, localModel: serviceLocalModel(fake) });
}

const table = new StaticEmbedder();
const model = new HashEmbedder(MODEL_DIMS);

/**
 * Which tier made `vector` for `text`: the table's, the (fake) model's (as `local` stores it, or
 * as `tiered` upgrades to it, blended with the table's), or neither.
 */
export function tierOfVector(text: string, vector: ArrayLike<number>): VectorTier | "none" {
  if (vector.length !== MODEL_DIMS) return "none";
  const fast = table.embedSync(text);
  if (cosine(vector, fast) > 0.999) return "static";
  const slow = model.embedSync(text);
  if (cosine(vector, slow) > 0.999 || cosine(vector, upgradedVector(slow, fast)) > 0.999) return "model";
  return "none";
}

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** An entry and a question that shares no word with it: only a vector finds one by the other. */
export const PET = "Olga adopted a kitten from the shelter in May";
export const PET_QUESTION = "which pet did she get?";

/** What the helpers call: a harness, or a child server's `httpCall` bound to its base. */
export interface JsonCaller {
  json(
    method: string,
    path: string,
    opts?: { token?: string; body?: unknown },
    // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
  ): Promise<{ status: number; body: any }>;
}

/** A child server's JsonCaller (server-process.ts `httpCall` on its base). */
export const callerOf = (base: string): JsonCaller => ({
  json: (method, path, opts) => httpCall(base, method, path, opts),
});

/**
 * The fake model (512 dims) and a runtime on the default embedder with it, started before the
 * enclosing describe's tests and stopped after them.
 */
export function useTieredRuntime(): { fake: FakeEmbeddings; h: Harness } {
  const suite = {} as { fake: FakeEmbeddings; h: Harness };
  beforeAll(async () => {
    suite.fake = startFakeEmbeddings(MODEL_DIMS);
    suite.h = await tieredHarness(suite.fake);
  });
  afterAll(async () => {
    await suite.h?.close();
    suite.fake?.stop();
  });
  return suite;
}

/** The tier of each entry's stored vector (`GET …?include=embedding`), in the order of `ids`. */
export async function tiersOf(
  h: JsonCaller,
  token: string,
  entries: Array<{ id: string; content: string; category?: string }>,
): Promise<Array<VectorTier | "none">> {
  const tiers: Array<VectorTier | "none"> = [];
  for (const { id, content, category = "facts" } of entries) {
    const read = await h.json("GET", `/memory/${category}/${id}?include=embedding`, { token });
    expect(read.status).toBe(200);
    tiers.push(tierOfVector(content, read.body.embedding));
  }
  return tiers;
}

/** The question finds `id` first, by its vector alone, with nothing waiting for a vector. */
export async function foundByMeaning(
  h: JsonCaller,
  token: string,
  id: string,
  query = PET_QUESTION,
): Promise<void> {
  const res = await h.json("POST", "/memory/search", { token, body: { query, limit: 3 } });
  expect(res.status).toBe(200);
  expect(res.body.results[0]?.entry.id).toBe(id);
  expect(res.body.results[0].scores.lexical).toBe(0);
  expect(res.body.results[0].scores.vector).toBeGreaterThan(0);
  expect(res.body.pending_vectors).toBeUndefined();
}
