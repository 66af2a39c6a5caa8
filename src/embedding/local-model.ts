import type { EmbedLane } from "./embedder.ts";
import { EmbeddingFailed } from "./embedding-failed.ts";
import type { SentenceEncoder } from "./use-lite.ts";
import { loadUseLiteInWorker } from "./worker-encoder.ts";

/**
 * Texts per model call. Batches of 16 embed ~1.5× as many sentences a second as single texts, and
 * larger ones no more (bench/results/embedders.json), while the model's memory grows with the
 * batch: ~+175 MB once loaded, up to ~+550 MB with batches of 64.
 */
export const MAX_LOCAL_BATCH = 16;

/**
 * Characters of one background chunk: a background batch is handed to the model a chunk at a
 * time, and a search's query goes before the next chunk, so it waits for one chunk at most (the
 * model's cost grows with the characters: ~50 ms for 250, ~170 ms for 2,000). Short entries
 * still share a call; a long one goes alone.
 */
export const BACKGROUND_CHUNK_CHARS = 400;

export interface LocalModelOptions {
  /**
   * Loads the sentence model; default: USE-lite from its npm package, run in a worker thread
   * (worker-encoder.ts), so the runtime's own thread serves requests meanwhile. Injected by tests.
   */
  load?: () => Promise<SentenceEncoder>;
  maxBatch?: number;
  /** Default BACKGROUND_CHUNK_CHARS; `Infinity`: background batches of up to `maxBatch` texts. */
  backgroundChunkChars?: number;
  /** Default true; false: one first-come lane for every call (a measurement's baseline). */
  queryLane?: boolean;
}

/**
 * A sentence model loaded on first use and run one chunk at a time.
 *
 * - Loaded once: concurrent first calls share the one load. A failed load is an `EmbeddingFailed`
 *   (answered 503, never a crash) and is forgotten, so a later call tries again: a transient cause
 *   (no memory, no file handle) may have passed.
 * - Serialised: the WASM backend computes on one thread (the model's worker) anyway, and two
 *   batches in flight would hold two sets of intermediate tensors.
 * - Two lanes: when the model is free, a waiting query's chunk goes before any background chunk
 *   (every runtime and tenant of the process shares the model, so several background batches may
 *   be waiting); a background batch is split into small chunks, so a search arriving during a
 *   backlog waits for the one chunk being embedded, not for the batches queued before it.
 */
export class LocalModel {
  private readonly loadEncoder: () => Promise<SentenceEncoder>;
  readonly maxBatch: number;
  private readonly chunkChars: number;
  private readonly queryLane: boolean;
  private loading: Promise<SentenceEncoder> | undefined;
  private running = false;
  private readonly waiting: Record<EmbedLane, Array<() => void>> = { query: [], background: [] };

  constructor(opts: LocalModelOptions = {}) {
    this.loadEncoder = opts.load ?? loadUseLiteInWorker;
    this.maxBatch = opts.maxBatch ?? MAX_LOCAL_BATCH;
    this.chunkChars = opts.backgroundChunkChars ?? BACKGROUND_CHUNK_CHARS;
    this.queryLane = opts.queryLane ?? true;
  }

  /** The loaded model; also a warm-up, for a caller that would rather not pay the load on a request. */
  load(): Promise<SentenceEncoder> {
    this.loading ??= this.loadEncoder().catch((err: unknown) => {
      this.loading = undefined;
      throw new EmbeddingFailed(`the local embedding model could not be loaded: ${errorText(err)}`);
    });
    return this.loading;
  }

  /** One raw vector per text, in order; `dims` is checked so a broken model cannot store garbage. */
  async embed(texts: string[], dims: number, lane: EmbedLane = "query"): Promise<number[][]> {
    const encoder = await this.load();
    const maxChars = lane === "background" ? this.chunkChars : Number.POSITIVE_INFINITY;
    const out: number[][] = [];
    // One chunk at a time: the next is queued once this one is done, behind any query come meanwhile.
    for (const chunk of chunksOf(texts, this.maxBatch, maxChars)) {
      const vectors = await this.inTurn(lane, () => this.run(encoder, chunk, dims));
      for (const vec of vectors) out.push(vec);
    }
    return out;
  }

  private async run(encoder: SentenceEncoder, batch: string[], dims: number): Promise<number[][]> {
    let vectors: number[][];
    try {
      vectors = await encoder.embed(batch);
    } catch (err) {
      throw new EmbeddingFailed(
        `the local embedding model failed on ${batch.length} texts: ${errorText(err)}`,
      );
    }
    if (vectors.length !== batch.length) {
      throw new EmbeddingFailed(
        `the local embedding model returned ${vectors.length} vectors for ${batch.length} texts`,
      );
    }
    const wrong = vectors.find((v) => v.length !== dims);
    if (wrong) {
      throw new EmbeddingFailed(
        `the local embedding model returned ${wrong.length} numbers, expected ${dims}`,
      );
    }
    return vectors;
  }

  /** Runs `job` once the model is free and no chunk of a lane served before `lane` waits. */
  private async inTurn<T>(lane: EmbedLane, job: () => Promise<T>): Promise<T> {
    if (this.running) {
      const queue = this.queryLane ? this.waiting[lane] : this.waiting.background;
      await new Promise<void>((resolve) => queue.push(resolve));
    }
    this.running = true;
    try {
      return await job();
    } finally {
      const next = this.waiting.query.shift() ?? this.waiting.background.shift();
      // Handed over, still running: no call arriving meanwhile can go before the one chosen.
      if (next) next();
      else this.running = false;
    }
  }
}

/** Consecutive runs of at most `maxTexts` texts and `maxChars` characters (a longer text alone). */
export function chunksOf(texts: string[], maxTexts: number, maxChars: number): string[][] {
  const chunks: string[][] = [];
  let chunk: string[] = [];
  let chars = 0;
  for (const text of texts) {
    if (chunk.length > 0 && (chunk.length >= maxTexts || chars + text.length > maxChars)) {
      chunks.push(chunk);
      chunk = [];
      chars = 0;
    }
    chunk.push(text);
    chars += text.length;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

let shared: LocalModel | undefined;

/**
 * The process's one USE-lite model: a cache of immutable weights, so every runtime in the process,
 * and every tenant of each, shares its memory (~175 MB) and its queue.
 */
export function sharedLocalModel(): LocalModel {
  shared ??= new LocalModel();
  return shared;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
