import { startWorkerThread, type WorkerThread } from "../runtime/worker-thread.ts";
import type { SentenceEncoder } from "./use-lite.ts";

/**
 * USE-lite in a worker thread of its own (use-lite-worker.ts), as the local model's encoder: the
 * model computes ~10–40 ms a text, which on the runtime's thread would hold up every request
 * meanwhile (measured: webhooks fell from thousands to ~50 a second while a backlog was being
 * embedded). Resolves once the model is loaded; rejects if it cannot be. Should the thread die,
 * what it was asked fails and the next call starts a new one. The thread does not keep the
 * process alive.
 */
export async function loadUseLiteInWorker(): Promise<SentenceEncoder> {
  let thread = start();
  await thread.ask([]);
  return {
    embed: async (texts) => {
      if (thread.broken) {
        thread = start();
        await thread.ask([]);
      }
      return thread.ask(texts);
    },
  };
}

function start(): WorkerThread<string[], number[][]> {
  return startWorkerThread(new URL("./use-lite-worker.ts", import.meta.url), "local model");
}
