import type { SentenceEncoder } from "./use-lite.ts";

interface Pending {
  resolve(vectors: number[][]): void;
  reject(error: Error): void;
}

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

function start(): { ask(texts: string[]): Promise<number[][]>; broken: boolean } {
  const worker = new Worker(new URL("./use-lite-worker.ts", import.meta.url));
  worker.unref();
  const pending = new Map<number, Pending>();
  let next = 0;
  const state = {
    broken: false,
    ask(texts: string[]): Promise<number[][]> {
      if (state.broken) return Promise.reject(new Error("the local model's thread has stopped"));
      const id = ++next;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, texts });
      });
    },
  };
  worker.onmessage = (event: MessageEvent<{ id: number; vectors?: number[][]; error?: string }>) => {
    const { id, vectors, error } = event.data;
    const waiting = pending.get(id);
    pending.delete(id);
    if (error !== undefined || !vectors) waiting?.reject(new Error(error ?? "no vectors"));
    else waiting?.resolve(vectors);
  };
  worker.onerror = (event) => {
    state.broken = true;
    worker.terminate();
    for (const waiting of pending.values()) waiting.reject(new Error(event.message));
    pending.clear();
  };
  return state;
}
