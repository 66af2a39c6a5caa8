import { Later, later } from "./later.ts";

/** The source of commits an actor's reply may depend on (see TenantVault.takeObserved). */
export interface CommitObserver {
  takeObserved(): Promise<void>[];
}

type Handler = (msg: never) => unknown;

/**
 * Wraps an actor's handlers so that a reply built from pending (uncommitted) state waits for that
 * state's commit: an acknowledgement never precedes the commit it stands for. Replies that read
 * only committed state are returned as they are, without a tick of delay.
 */
export function afterCommits<H extends Record<string, Handler>>(observer: CommitObserver, handlers: H): H {
  const wrapped: Record<string, Handler> = {};
  for (const [type, handler] of Object.entries(handlers)) {
    wrapped[type] = (msg: never) => {
      let out: unknown;
      try {
        out = handler(msg);
      } catch (error) {
        const waits = observer.takeObserved();
        if (waits.length === 0) throw error;
        return later(Promise.all(waits).then(() => Promise.reject(error)));
      }
      const waits = observer.takeObserved();
      if (waits.length === 0) return out;
      return later(Promise.all(waits).then(() => settled(out)));
    };
  }
  return wrapped as H;
}

async function settled(out: unknown): Promise<unknown> {
  const value = await out;
  return value instanceof Later ? value.promise : value;
}
