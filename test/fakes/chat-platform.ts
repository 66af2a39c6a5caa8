/**
 * A local fake of a chat platform's Socket Mode endpoint (WebSocket on 127.0.0.1): says hello, pushes
 * `events_api` envelopes, records acknowledgements, and sends unacknowledged envelopes again to the
 * next connection, as the platform does.
 */
import type { ServerWebSocket } from "bun";

export interface FakeChatPlatform {
  url: string;
  /** Queues an event; sent at once to a connected adapter, else on its next connection. */
  push(event: unknown): string;
  acked: Set<string>;
  /** Resolves once every pushed envelope is acknowledged. */
  allAcked(): Promise<void>;
  /** Closes the adapter's connection (as a platform rotating its sockets does). */
  disconnect(): void;
  stop(): void;
}

export function startFakeChatPlatform(): FakeChatPlatform {
  const pending = new Map<string, string>(); // envelope id → frame
  const acked = new Set<string>();
  const sockets = new Set<ServerWebSocket<unknown>>();
  const waiters: Array<() => void> = [];
  let n = 0;
  const settle = () => {
    if (pending.size > 0) return;
    for (const resolve of waiters.splice(0)) resolve();
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req, srv) {
      return srv.upgrade(req) ? undefined : new Response("upgrade required", { status: 426 });
    },
    websocket: {
      open(ws) {
        sockets.add(ws);
        ws.send(JSON.stringify({ type: "hello", num_connections: sockets.size }));
        for (const frame of pending.values()) ws.send(frame);
      },
      message(_ws, message) {
        const { envelope_id } = JSON.parse(String(message)) as { envelope_id?: string };
        if (!envelope_id || !pending.has(envelope_id)) return;
        pending.delete(envelope_id);
        acked.add(envelope_id);
        settle();
      },
      close(ws) {
        sockets.delete(ws);
      },
    },
  });
  return {
    url: `ws://127.0.0.1:${server.port}/socket`,
    acked,
    push(event) {
      const id = `env-${++n}`;
      const frame = JSON.stringify({ envelope_id: id, type: "events_api", payload: { event } });
      pending.set(id, frame);
      for (const ws of sockets) ws.send(frame);
      return id;
    },
    allAcked: () =>
      new Promise<void>((resolve) => {
        waiters.push(resolve);
        settle();
      }),
    disconnect() {
      for (const ws of sockets) ws.close(1000, "refresh");
    },
    stop() {
      server.stop(true);
    },
  };
}
