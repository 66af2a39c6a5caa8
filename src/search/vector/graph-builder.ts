import { availableParallelism } from "node:os";
import { startWorkerThread, type WorkerThread } from "../../runtime/worker-thread.ts";
import { buildGraphRound, type GraphRoundInput, type GraphRoundOutput, roundBuffers } from "./graph-build.ts";

/**
 * Where a vector index's graph rounds are built (vector-index.ts `beginRound`). The runtime's is a
 * thread of its own shared by every tenant (`threadGraphBuilder`): insertion into the HNSW graph is
 * the costliest thing a write leads to (~60% of the service's CPU during a bulk load, ~20% under
 * a webhook storm, measured), and on the tenant actor's thread every chunk of it held up that
 * tenant's searches and writes. A round's inputs are transferred, not copied.
 */
export interface GraphBuilder {
  build(round: GraphRoundInput): Promise<GraphRoundOutput>;
  stop(): void;
}

const BUILD_THREADS = Math.max(1, availableParallelism() - 1);

/** One build thread for the runtime; rounds queue on it (one at a time), a dead thread is replaced. */
export function threadGraphBuilder(): GraphBuilder {
  let thread: WorkerThread<GraphRoundInput, GraphRoundOutput> | undefined;
  let stopped = false;
  const start = () =>
    startWorkerThread<GraphRoundInput, GraphRoundOutput>(
      new URL("./graph-build-worker.ts", import.meta.url),
      "vector graph build",
    );
  return {
    build(round) {
      if (stopped) return Promise.reject(new Error("the graph builder has stopped"));
      if (!thread || thread.broken) thread = start();
      // One core is left to the runtime's own thread, whose requests this build must not hold up.
      const threads = Math.max(1, Math.min(round.threads || BUILD_THREADS, BUILD_THREADS));
      return thread.ask({ ...round, threads }, roundBuffers(round));
    },
    stop() {
      stopped = true;
      thread?.stop();
    },
  };
}

/** Builds on the caller's thread, answering on a later turn (tests; a runtime without threads). */
export function inlineGraphBuilder(): GraphBuilder {
  return {
    build: async (round) => {
      await Promise.resolve();
      return buildGraphRound(round);
    },
    stop: () => undefined,
  };
}
