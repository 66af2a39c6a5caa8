/**
 * The mechanics of a live stream of a tenant's changes as server-sent events: the durable log
 * replayed after a position, then the live feed, without a gap or a duplicate; heartbeats and the
 * end of the stream on the injected clock; a bounded queue per client. It knows nothing of HTTP,
 * permissions or entries: a `ChangeSource` says where changes come from and what each one becomes.
 *
 * The body is a pull stream: the server takes a chunk only when the socket can take it, so what
 * the client has not read stays in this stream's queue, where it is counted and bounded.
 */
import type { Change } from "../models/change.ts";
import type { Clock, TimerHandle } from "../runtime/clock.ts";

/** Events (heartbeats included) waiting for a client at most: past it the client is disconnected. */
export const STREAM_MAX_QUEUED_EVENTS = 1000;
/** Bytes waiting for a client at most: past it the client is disconnected. */
export const STREAM_MAX_QUEUED_BYTES = 1024 * 1024;
/** Live changes waiting behind the event being prepared at most (ids only, small). */
export const STREAM_MAX_PENDING_CHANGES = 10_000;
/** Changes read from the durable log per request to the tenant. */
export const STREAM_BACKLOG_CHUNK = 100;
/** The reconnection delay suggested to clients (`retry:`). */
export const STREAM_RETRY_MS = 3000;

/** Where a stream's changes come from, and what each becomes for this client. */
export interface ChangeSource {
  /** Follows live commits; the returned function stops following. */
  subscribe(listener: (changes: Change[]) => void): () => void;
  /** The durable log after `after`, oldest first, at most `limit`; `last` is the log's end. */
  since(after: number, limit: number): Promise<{ changes: Change[]; last: number }>;
  /** The event's data (one line) for a change, or undefined when this client is not to see it. */
  render(change: Change): Promise<string | undefined>;
  /** Why the stream must end now (the tenant is gone, say), or undefined while it may go on. */
  endReason(): string | undefined;
}

export type CloseReason = "cancelled" | "overflow" | "expired" | "ended" | "failed";

export interface EntryStreamOptions {
  clock: Clock;
  heartbeatMs: number;
  /** Resume after this position (Last-Event-ID); undefined: live from now. */
  after?: number;
  /** Epoch ms when the stream ends (its token's `exp`). */
  closeAt?: number;
  retryMs?: number;
  maxQueuedEvents?: number;
  maxQueuedBytes?: number;
  maxPendingChanges?: number;
  backlogChunk?: number;
  /** Told once, when the stream ends for whatever reason (after its listener and timers are gone). */
  onClose?: (reason: CloseReason, detail?: string) => void;
}

const encoder = new TextEncoder();

/** One SSE event: `id`, `event`, then `data` (one line of JSON: no newline can split it). */
export function sseEvent(id: number, event: string, data: string): string {
  return `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`;
}

/** A comment line: clients ignore it; it keeps proxies and the connection from going idle. */
export function sseComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, " ")}\n\n`;
}

export class EntryStream {
  readonly body: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private readonly queue: Uint8Array[] = [];
  private queuedBytes = 0;
  /** Wakes a pull waiting for a chunk. */
  private wakePull: (() => void) | undefined;
  /** Wakes the backlog replay waiting for the client to read. */
  private wakeRoom: (() => void) | undefined;
  private closed = false;
  private bodyClosed = false;
  /** The newest position sent or passed over: nothing at or below it is sent again. */
  private cursor = 0;
  /** While the backlog is replayed, live changes wait here; `overrun` when there were too many. */
  private replaying: { buffer: Change[]; overrun: boolean } | undefined;
  /** Live changes accepted and not yet handled. */
  private pending = 0;
  private work: Promise<void> = Promise.resolve();
  private readonly unsubscribe: () => void;
  private heartbeat: TimerHandle | undefined;
  private expiry: TimerHandle | undefined;
  private readonly limits: { events: number; bytes: number; pending: number; chunk: number };

  constructor(
    private readonly source: ChangeSource,
    private readonly options: EntryStreamOptions,
  ) {
    this.limits = {
      events: options.maxQueuedEvents ?? STREAM_MAX_QUEUED_EVENTS,
      bytes: options.maxQueuedBytes ?? STREAM_MAX_QUEUED_BYTES,
      pending: options.maxPendingChanges ?? STREAM_MAX_PENDING_CHANGES,
      chunk: options.backlogChunk ?? STREAM_BACKLOG_CHUNK,
    };
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: (controller) => this.pull(controller),
        cancel: () => this.close("cancelled"),
      },
      { highWaterMark: 0 },
    );
    // Subscribed before the log is read: a commit between the two is in one or the other (or both,
    // and then dropped by position), never in neither.
    if (options.after !== undefined) this.replaying = { buffer: [], overrun: false };
    this.unsubscribe = source.subscribe((changes) => this.onLive(changes));
    this.push(`retry: ${options.retryMs ?? STREAM_RETRY_MS}\n\n`);
    this.armHeartbeat();
    if (options.closeAt !== undefined && Number.isFinite(options.closeAt)) {
      this.expiry = options.clock.setTimeout(
        () => this.end("expired", "the token expired"),
        Math.max(0, options.closeAt - options.clock.now()),
      );
    }
    if (options.after !== undefined) this.serially(() => this.replay(options.after as number));
  }

  /** Events and bytes waiting for the client now (for tests and figures). */
  get queued(): { events: number; bytes: number } {
    return { events: this.queue.length, bytes: this.queuedBytes };
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Ends the stream: its listener and timers go at once, what is queued is dropped (a client that
   * reconnects with its Last-Event-ID gets it again from the log). `lastWords` (a comment) is the
   * body's last chunk.
   */
  close(reason: CloseReason, detail?: string, lastWords?: string): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    this.heartbeat?.cancel();
    this.expiry?.cancel();
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.replaying = undefined;
    if (reason !== "cancelled") {
      if (lastWords) this.enqueueDirect(lastWords);
      this.closeBody();
    }
    this.wakePull?.();
    this.wakeRoom?.();
    this.options.onClose?.(reason, detail);
  }

  /** A normal end (expiry, tenant gone, server stopping): a last comment says why. */
  end(reason: CloseReason, detail: string): void {
    this.close(reason, detail, sseComment(`closed: ${detail}`));
  }

  private enqueueDirect(text: string): void {
    try {
      this.controller.enqueue(encoder.encode(text));
    } catch {
      // Cancelled by the client meanwhile: nothing more to say.
    }
  }

  private closeBody(): void {
    if (this.bodyClosed) return;
    this.bodyClosed = true;
    try {
      this.controller.close();
    } catch {
      // Cancelled by the client meanwhile.
    }
  }

  private async pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    while (this.queue.length === 0 && !this.closed) {
      await new Promise<void>((resolve) => {
        this.wakePull = resolve;
      });
      this.wakePull = undefined;
    }
    const chunk = this.queue.shift();
    if (!chunk) return;
    this.queuedBytes -= chunk.byteLength;
    controller.enqueue(chunk);
    if (this.hasRoom()) this.wakeRoom?.();
  }

  /** Queues a chunk for the client; a client that lets the queue pass its bound is disconnected. */
  private push(text: string): void {
    if (this.closed) return;
    const chunk = encoder.encode(text);
    this.queue.push(chunk);
    this.queuedBytes += chunk.byteLength;
    if (this.queue.length > this.limits.events || this.queuedBytes > this.limits.bytes) {
      this.close("overflow", "the client does not read fast enough");
      return;
    }
    this.wakePull?.();
  }

  /** Room for another backlog chunk: the queue is under half its bounds. */
  private hasRoom(): boolean {
    return this.queue.length <= this.limits.events / 2 && this.queuedBytes <= this.limits.bytes / 2;
  }

  private async room(): Promise<void> {
    while (!this.closed && !this.hasRoom()) {
      await new Promise<void>((resolve) => {
        this.wakeRoom = resolve;
      });
      this.wakeRoom = undefined;
    }
  }

  private armHeartbeat(): void {
    this.heartbeat = this.options.clock.setTimeout(() => {
      if (this.closed) return;
      const ended = this.source.endReason();
      if (ended) return this.end("ended", ended);
      this.push(sseComment("ping"));
      if (!this.closed) this.armHeartbeat();
    }, this.options.heartbeatMs);
  }

  /** Runs after everything queued before it; a failure ends the stream (the client resumes). */
  private serially(task: () => Promise<void>): void {
    this.work = this.work.then(task).catch((error: unknown) => {
      this.close("failed", error instanceof Error ? error.message : String(error));
    });
  }

  private onLive(changes: Change[]): void {
    if (this.closed || changes.length === 0) return;
    const replaying = this.replaying;
    if (replaying) {
      // The durable log has all of them: too many to keep means only "read the log once more".
      if (replaying.buffer.length + changes.length > this.limits.pending) {
        replaying.buffer = [];
        replaying.overrun = true;
      } else replaying.buffer.push(...changes);
      return;
    }
    this.pending += changes.length;
    if (this.pending > this.limits.pending) {
      this.close("overflow", "too many changes wait for this client");
      return;
    }
    this.serially(async () => {
      try {
        await this.deliver(changes);
      } finally {
        this.pending -= changes.length;
      }
    });
  }

  /** The log after `after`, chunk by chunk as the client reads, then the live changes kept meanwhile. */
  private async replay(after: number): Promise<void> {
    this.cursor = after;
    let first = true;
    for (;;) {
      const replaying = this.replaying;
      if (!replaying || this.closed) return;
      replaying.overrun = false;
      for (;;) {
        await this.room();
        if (this.closed) return;
        const { changes, last } = await this.source.since(this.cursor, this.limits.chunk);
        // A position past the log's end (another log, a future id): live from the end.
        if (first && this.cursor > last) this.cursor = last;
        first = false;
        await this.deliver(changes);
        if (changes.length < this.limits.chunk) break;
      }
      if (!replaying.overrun) break;
    }
    const buffered = this.replaying?.buffer ?? [];
    this.replaying = undefined;
    await this.deliver(buffered);
  }

  private async deliver(changes: Change[]): Promise<void> {
    for (const change of changes) {
      if (this.closed) return;
      if (change.seq <= this.cursor) continue;
      this.cursor = change.seq;
      const ended = this.source.endReason();
      if (ended) return this.end("ended", ended);
      const data = await this.source.render(change);
      if (data !== undefined) this.push(sseEvent(change.seq, change.type, data));
    }
  }
}
