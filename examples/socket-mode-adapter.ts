/**
 * An example chat-platform adapter, Socket Mode style: the adapter holds a WebSocket to the platform,
 * which pushes envelopes `{envelope_id, type: "events_api", payload: {event}}`; each event goes to
 * the runtime's in-process bridge, and the envelope is acknowledged (`{envelope_id}`) only once the
 * event is stored, so an event the runtime did not take is delivered again by the platform.
 *
 *   bun run examples/socket-mode-adapter.ts      # CHAT_SOCKET_URL, CHAT_TENANT_ID and the runtime's env
 */
import { BridgeEventInvalid, BridgeQueueFull, createRuntime, type MemoryRuntime } from "../src/lib.ts";

export interface AdapterOptions {
  /** The platform's socket URL (Socket Mode hands one out per connection). */
  url: string;
  /** The tenant whose memory this workspace feeds. */
  tenantId: string;
  bridge: MemoryRuntime["bridge"];
  log?: (line: string) => void;
}

export interface Adapter {
  /** Resolves when the platform closes the socket (or `stop` is called). */
  closed: Promise<void>;
  stop(): void;
}

interface Envelope {
  envelope_id?: string;
  type?: string;
  payload?: { event?: unknown };
}

export function connectSocketMode(options: AdapterOptions): Adapter {
  const log = options.log ?? console.log;
  const socket = new WebSocket(options.url);
  const closed = new Promise<void>((resolve) => socket.addEventListener("close", () => resolve()));
  socket.addEventListener("message", (message) => {
    void handle(String(message.data));
  });

  async function handle(text: string): Promise<void> {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(text) as Envelope;
    } catch {
      return log("adapter: a frame that is not JSON was skipped");
    }
    if (envelope.type !== "events_api" || !envelope.envelope_id) return;
    try {
      const result = await options.bridge.deliver(options.tenantId, envelope.payload?.event);
      socket.send(JSON.stringify({ envelope_id: envelope.envelope_id }));
      log(
        `adapter: ${envelope.envelope_id} → ${result.entries.length} entries, ${result.duplicates} duplicates`,
      );
    } catch (error) {
      if (error instanceof BridgeEventInvalid) {
        // Malformed for good: acknowledged, or the platform would send it forever.
        socket.send(JSON.stringify({ envelope_id: envelope.envelope_id }));
        return log(`adapter: ${envelope.envelope_id} refused: ${error.message}`);
      }
      // Queue full, storage trouble: not acknowledged, so the platform delivers it again later.
      const why = error instanceof BridgeQueueFull ? "queue full" : String(error);
      log(`adapter: ${envelope.envelope_id} not taken (${why}); the platform will retry`);
    }
  }

  return { closed, stop: () => socket.close() };
}

if (import.meta.main) {
  const url = process.env.CHAT_SOCKET_URL;
  const tenantId = process.env.CHAT_TENANT_ID;
  if (!url || !tenantId) {
    console.error("set CHAT_SOCKET_URL and CHAT_TENANT_ID (and the runtime's MEMORY_RUNTIME_* variables)");
    process.exit(2);
  }
  const runtime = createRuntime();
  const adapter = connectSocketMode({ url, tenantId, bridge: runtime.bridge });
  await adapter.closed;
  await runtime.stop();
}
