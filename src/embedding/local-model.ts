import { EmbeddingFailed } from "./embedding-failed.ts";
import type { SentenceEncoder } from "./use-lite.ts";
import { loadUseLiteInWorker } from "./worker-encoder.ts";

/**
 * Texts per model call. Batches of 16 embed ~1.5× as many sentences a second as single texts, and
 * larger ones no more (bench/results/embedders.json), while the model's memory grows with the
 * batch: ~+175 MB once loaded, up to ~+550 MB with batches of 64.
 */
export const MAX_LOCAL_BATCH = 16;

export interface LocalModelOptions {
  /**
   * Loads the sentence model; default: USE-lite from its npm package, run in a worker thread
   * (worker-encoder.ts), so the runtime's own thread serves requests meanwhile. Injected by tests.
   */
  load?: () => Promise<SentenceEncoder>;
  maxBatch?: number;
}

/**
 * A sentence model loaded on first use and run one batch at a time.
 *
 * - Loaded once: concurrent first calls share the one load. A failed load is an `EmbeddingFailed`
 *   (answered 503, never a crash) and is forgotten, so a later call tries again: a transient cause
 *   (no memory, no file handle) may have passed.
 * - Serialised: the WASM backend computes on one thread (the model's worker) anyway, and two
 *   batches in flight would hold two sets of intermediate tensors. A long call queues its batches
 *   one at a time, so a search arriving during a bulk write waits for one batch, not for the whole
 *   write.
 */
export class LocalModel {
  private readonly loadEncoder: () => Promise<SentenceEncoder>;
  readonly maxBatch: number;
  private loading: Promise<SentenceEncoder> | undefined;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(opts: LocalModelOptions = {}) {
    this.loadEncoder = opts.load ?? loadUseLiteInWorker;
    this.maxBatch = opts.maxBatch ?? MAX_LOCAL_BATCH;
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
  async embed(texts: string[], dims: number): Promise<number[][]> {
    const encoder = await this.load();
    const out: number[][] = [];
    for (let start = 0; start < texts.length; start += this.maxBatch) {
      const batch = texts.slice(start, start + this.maxBatch);
      const vectors = await this.serially(() => this.run(encoder, batch, dims));
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

  private serially<T>(job: () => Promise<T>): Promise<T> {
    const run = this.tail.then(job);
    this.tail = run.catch(() => undefined);
    return run;
  }
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
