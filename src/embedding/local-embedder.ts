import type { Embedder, EmbedLane } from "./embedder.ts";
import { EmbeddingFailed } from "./embedding-failed.ts";
import type { LocalModel } from "./local-model.ts";
import { LruCache } from "./lru-cache.ts";
import { USE_LITE_DIMS } from "./use-lite.ts";
import { normalizeInPlace, vectorProblem } from "./vector-math.ts";

/**
 * The characters of a text that are embedded. The model's cost grows faster than the text (~50 ms
 * for 250 characters, ~170 ms for 2,000, ~450 ms for 8,000, measured) while a note's gist is in its
 * opening; the lexical index still sees the whole text.
 */
export const MAX_EMBEDDED_CHARS = 2_000;

/** Query vectors kept: 1,000 × 512 float32 is 2 MB, plus the texts. */
export const QUERY_CACHE_ENTRIES = 1_000;

/**
 * Semantic vectors computed in process by a local sentence model (USE-lite: 512 dims, see
 * use-lite.ts), with no service to call. Vectors are L2-normalised. A text with no visible
 * character embeds to the zero vector, as with the hash embedder: it has no direction, so the
 * vector index does not store it.
 *
 * Searches embed one text per call on the query lane: those vectors are kept in an LRU cache so a
 * repeated query costs nothing, while the background embedder's batches (one text too, at the end
 * of a backlog) cannot wash the queries out of it. Every call looks the cache up, so an entry
 * whose text was searched for is free too.
 */
export class LocalEmbedder implements Embedder {
  readonly kind = "local" as const;
  readonly dims = USE_LITE_DIMS;
  private readonly cache: LruCache<string, Float32Array>;

  constructor(
    private readonly model: LocalModel,
    cacheEntries = QUERY_CACHE_ENTRIES,
  ) {
    this.cache = new LruCache(cacheEntries);
  }

  async embed(texts: string[], lane: EmbedLane = "query"): Promise<Float32Array[]> {
    const inputs = texts.map(modelInput);
    const out = new Array<Float32Array>(texts.length);
    const missing: number[] = [];
    inputs.forEach((input, i) => {
      const cached = input ? this.cache.get(input) : new Float32Array(this.dims);
      // A copy: the caller may keep or scale its vector, the cache's must stay as it is.
      if (cached) out[i] = cached.slice();
      else missing.push(i);
    });
    if (missing.length === 0) return out;
    const raw = await this.model.embed(
      missing.map((i) => inputs[i]!),
      this.dims,
      lane,
    );
    missing.forEach((i, k) => {
      out[i] = unitVector(raw[k]!, this.dims);
    });
    if (lane === "query" && texts.length === 1 && missing.length === 1)
      this.cache.set(inputs[0]!, out[0]!.slice());
    return out;
  }
}

/**
 * What the model sees: whitespace runs as single spaces (its tokenizer knows spaces, not newlines
 * or tabs, and equal queries then share a cache entry), at most MAX_EMBEDDED_CHARS characters.
 */
function modelInput(text: string): string {
  return text.replace(/\s+/g, " ").trim().slice(0, MAX_EMBEDDED_CHARS);
}

function unitVector(values: number[], dims: number): Float32Array {
  const vec = Float32Array.from(values);
  const problem = vectorProblem(vec, dims);
  if (problem) throw new EmbeddingFailed(`the local embedding model returned a vector that ${problem}`);
  normalizeInPlace(vec);
  return vec;
}
