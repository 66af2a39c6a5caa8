/**
 * The app of a test harness on a loopback port (Bun.serve), for the client's tests: a real
 * listening server that clients and spawned example programs reach over TCP. Every answer is
 * checked against the OpenAPI document too; the ones it does not allow are kept in `nonConforming`.
 */
import type { Server } from "bun";
import type { Harness } from "../helpers/harness.ts";
import { assertConforms } from "../helpers/openapi-conformance.ts";

export interface LiveServer {
  base: string;
  nonConforming: string[];
  stop(): Promise<void>;
}

export function serveHarness(h: Harness): LiveServer {
  const nonConforming: string[] = [];
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const res = await h.app.handle(request);
      const url = new URL(request.url);
      // The checker reads a copy; the client reads the answer itself.
      const copy = new Response(await res.clone().arrayBuffer(), res);
      await assertConforms(h.app, request.method, url.pathname + url.search, copy).catch((e: Error) =>
        nonConforming.push(e.message),
      );
      return res;
    },
  });
  return { base: `http://127.0.0.1:${server.port}`, nonConforming, stop: () => server.stop(true) };
}
