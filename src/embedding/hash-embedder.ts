import type { Embedder } from "./embedder.ts";
import { tokenize } from "./tokenize.ts";
import { normalizeInPlace } from "./vector-math.ts";

export const HASH_EMBEDDER_DIMS = 384;

// Bigrams carry word order and phrases; half weight keeps them from outvoting the words themselves.
const UNIGRAM_WEIGHT = 1;
const BIGRAM_WEIGHT = 0.5;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const SPACE = 0x20;

/** FNV-1a over UTF-16 code units, continuing from `hash` so bigrams hash without string concatenation. */
function fnv1a(text: string, hash = FNV_OFFSET): number {
  let h = hash;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}

/** Murmur3's finaliser: FNV's low bits are weak, and the bucket is taken from them. */
function mix(hash: number): number {
  let h = hash;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The built-in embedder: signed feature hashing ("the hashing trick") of word unigrams and
 * bigrams into `dims` buckets, L2-normalised. Offline, deterministic across processes and
 * machines, and cheap (a few microseconds for a sentence), at the price of knowing nothing
 * of synonyms: texts are close when they share words.
 *
 * Text without a single word (empty, only punctuation or emoji) embeds to the zero vector,
 * which has no direction: cosine similarity with it is undefined, so the vector index does
 * not store it and such entries are found by filters and lexical search only.
 */
export class HashEmbedder implements Embedder {
  readonly kind = "hash" as const;

  constructor(readonly dims: number = HASH_EMBEDDER_DIMS) {
    if (!Number.isInteger(dims) || dims < 1) throw new Error(`hash embedder dims must be a positive integer`);
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((text) => this.embedSync(text));
  }

  embedSync(text: string): Float32Array {
    const vec = new Float32Array(this.dims);
    const tokens = tokenize(text);
    let previous = 0;
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i]!;
      const hash = fnv1a(token);
      this.addFeature(vec, hash, UNIGRAM_WEIGHT);
      if (i > 0) this.addFeature(vec, fnv1a(token, Math.imul(previous ^ SPACE, FNV_PRIME)), BIGRAM_WEIGHT);
      previous = hash;
    }
    normalizeInPlace(vec);
    return vec;
  }

  private addFeature(vec: Float32Array, rawHash: number, weight: number): void {
    const h = mix(rawHash);
    // The top bit picks the sign, so colliding features tend to cancel instead of piling up.
    const bucket = (h & 0x7fffffff) % this.dims;
    vec[bucket] = vec[bucket]! + (h & 0x80000000 ? -weight : weight);
  }
}
