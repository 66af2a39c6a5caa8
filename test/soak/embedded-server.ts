/**
 * The service embedded as `src/lib.ts` documents, with a chat adapter beside it: the messaging bridge
 * exists only in-process, so this program is what a soak kills when it wants bridge events in flight.
 * It is `src/index.ts` (createRuntime on the process environment, listen) plus an adapter on a second
 * loopback port that hands each posted event to `runtime.bridge.deliver`, the way the Socket Mode
 * example adapter does (examples/socket-mode-adapter.ts), but over plain HTTP so a test can drive it:
 *
 *   POST /events/{tenant_id}   body: one bridge event → 200 BridgeResult | 4xx problem
 *
 * The adapter's port is printed before the service's "listening on" line (startServerProcess reads both).
 */
import { AppError, createRuntime } from "../../src/lib.ts";

const runtime = createRuntime({ env: process.env });

const adapter = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const match = /^\/events\/([^/]+)$/.exec(new URL(request.url).pathname);
    if (request.method !== "POST" || !match) return new Response("not found", { status: 404 });
    try {
      const result = await runtime.bridge.deliver(match[1]!, await request.json());
      return Response.json(result);
    } catch (error) {
      // Refusals (unknown tenant, malformed event, queue full) keep their status; anything else is a 500.
      const status = error instanceof AppError ? error.status : 500;
      return Response.json({ error: error instanceof Error ? error.message : String(error) }, { status });
    }
  },
});

console.log(`bridge adapter on http://127.0.0.1:${adapter.port}`);
const { url } = runtime.listen();
console.log(`memory-runtime (embedded) listening on ${url}`);

process.on("SIGTERM", () => {
  void adapter.stop(true).then(async () => {
    await runtime.stop();
    process.exit(0);
  });
});
