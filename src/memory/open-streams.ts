import type { EntryStream } from "./entry-stream.ts";

/** The streams open on one app, so that stopping the server can end them first (it waits for them). */
export class OpenStreams {
  private readonly open = new Set<EntryStream>();

  add(stream: EntryStream): void {
    this.open.add(stream);
  }

  delete(stream: EntryStream): void {
    this.open.delete(stream);
  }

  get size(): number {
    return this.open.size;
  }

  /** Ends every open stream (before the server stops: it waits for open responses). */
  endAll(): void {
    for (const stream of [...this.open]) stream.end("ended", "the server is stopping");
  }
}

/**
 * The registry of the app built from `owner` (the runtime's dependencies), made on first use: the
 * stream service adds to it, the stop ends what it holds.
 */
const registries = new WeakMap<object, OpenStreams>();

export function openStreamsOf(owner: object): OpenStreams {
  let streams = registries.get(owner);
  if (!streams) {
    streams = new OpenStreams();
    registries.set(owner, streams);
  }
  return streams;
}

/** Ends every stream open on the app built from `owner`. */
export function closeMemoryStreams(owner: object): void {
  openStreamsOf(owner).endAll();
}

/** The number of streams open on the app built from `owner`. */
export function openMemoryStreams(owner: object): number {
  return openStreamsOf(owner).size;
}
