/**
 * The worker thread the local model runs in (worker-encoder.ts): it loads USE-lite once and
 * answers each list of texts with their vectors (src/runtime/worker-thread.ts). TF.js computes on
 * the thread that calls it; here that is not the runtime's, whose requests go on being served
 * meanwhile. An empty list only waits for the load (a failed load is answered as an error).
 */
import { answerQuestions } from "../runtime/worker-thread.ts";
import { loadUseLite } from "./use-lite.ts";

const loading = loadUseLite();
// Answered through the messages; the rejection must not end the thread first.
loading.catch(() => undefined);

answerQuestions(async (texts: string[]) => {
  const model = await loading;
  return texts.length === 0 ? [] : await model.embed(texts);
});
