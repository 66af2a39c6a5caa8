/**
 * A worker thread asked questions by id: `ask(input)` posts `{id, input}` and resolves with the
 * thread's `{id, output}` (rejects on its `{id, error}`). Should the thread die (an uncaught error,
 * a crash of native code it loaded), everything it was asked fails at once and `broken` is set;
 * the owner starts a new one for the next question. The thread never keeps the process alive.
 * Used by the local model (src/embedding/worker-encoder.ts) and the vector graph's builds
 * (src/search/vector/graph-builder.ts).
 */
export interface WorkerThread<In, Out> {
  ask(input: In, transfer?: ArrayBuffer[]): Promise<Out>;
  readonly broken: boolean;
  /** Ends the thread once it has answered its current question; questions still open fail now. */
  stop(): void;
}

/** What a thread is asked: a question by id, or to end once the one it is answering is. */
export type WorkerQuestion<In> = { id: number; input: In } | { stop: true };

/** What a thread answers: its output, or the message of the error it met. */
export type WorkerReply<Out> = { id: number; output: Out } | { id: number; error: string };

interface Pending<Out> {
  resolve(output: Out): void;
  reject(error: Error): void;
}

export function startWorkerThread<In, Out>(script: URL, name: string): WorkerThread<In, Out> {
  const worker = new Worker(script);
  worker.unref();
  const pending = new Map<number, Pending<Out>>();
  let next = 0;
  const fail = (message: string) => {
    for (const waiting of pending.values()) waiting.reject(new Error(message));
    pending.clear();
  };
  const thread = {
    broken: false,
    ask(input: In, transfer: ArrayBuffer[] = []): Promise<Out> {
      if (thread.broken) return Promise.reject(new Error(`the ${name} thread has stopped`));
      const id = ++next;
      return new Promise<Out>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, input } satisfies WorkerQuestion<In>, transfer);
      });
    },
    stop(): void {
      if (thread.broken) return;
      thread.broken = true;
      // Not `terminate()`: a thread stopped inside native code (usearch) can abort the whole
      // process ("terminate called after throwing an instance of 'Napi::Error'", seen in the
      // suite). The thread ends itself once its current question is answered (to nobody).
      worker.postMessage({ stop: true } satisfies WorkerQuestion<In>);
      fail(`the ${name} thread was stopped`);
    },
  };
  worker.onmessage = (event: MessageEvent<WorkerReply<Out>>) => {
    const reply = event.data;
    const waiting = pending.get(reply.id);
    pending.delete(reply.id);
    if ("error" in reply) waiting?.reject(new Error(reply.error));
    else waiting?.resolve(reply.output);
  };
  worker.onerror = (event) => {
    thread.broken = true;
    worker.terminate();
    fail(event.message || `the ${name} thread failed`);
  };
  return thread;
}

/** The thread's side: answers each `{id, input}` with `answer(input)`'s output or its error. */
export function answerQuestions<In, Out>(answer: (input: In) => Out | Promise<Out>): void {
  const self = globalThis as unknown as Worker;
  self.onmessage = async (event: MessageEvent<WorkerQuestion<In>>) => {
    // Messages come in order: a stop is read once the question before it is answered (or, an
    // answer that awaits, at its first await).
    if ("stop" in event.data) process.exit(0);
    const { id, input } = event.data;
    try {
      self.postMessage({ id, output: await answer(input) } satisfies WorkerReply<Out>);
    } catch (error) {
      self.postMessage({
        id,
        error: error instanceof Error ? error.message : String(error),
      } satisfies WorkerReply<Out>);
    }
  };
}
