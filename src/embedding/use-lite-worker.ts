/**
 * The worker thread the local model runs in (worker-encoder.ts): it loads USE-lite once and
 * answers `{id, texts}` with `{id, vectors}` or `{id, error}`. TF.js computes on the thread that
 * calls it; here that is not the runtime's, whose requests go on being served meanwhile.
 * An empty `texts` only waits for the load (a failed load is answered as an error).
 */
import { loadUseLite } from "./use-lite.ts";

declare const self: Worker;

const loading = loadUseLite();
// Answered through the messages; the rejection must not end the thread first.
loading.catch(() => undefined);

self.onmessage = async (event: MessageEvent<{ id: number; texts: string[] }>) => {
  const { id, texts } = event.data;
  try {
    const model = await loading;
    const vectors = texts.length === 0 ? [] : await model.embed(texts);
    self.postMessage({ id, vectors });
  } catch (error) {
    self.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
};
