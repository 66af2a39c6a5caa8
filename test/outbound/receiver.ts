/**
 * A local subscriber for outbound-event tests: Bun.serve on 127.0.0.1 (port 0 unless given), which
 * keeps every request and answers with the status `respond` picks. Waiting is event-driven: a
 * waiter resolves when the request it waits for arrives.
 */
import type { Server } from "bun";

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read event bodies field by field
  json: any;
  /** The status this request was answered with. */
  status: number;
}

export class Receiver {
  readonly received: Received[] = [];
  /** The status of the answer to the request at `index` (0-based); 200 by default. */
  respond: (index: number, req: Received) => number = () => 200;
  private waiters: Array<{ count: number; resolve: () => void }> = [];
  private server: Server<undefined> | undefined;
  port = 0;

  static async start(port = 0): Promise<Receiver> {
    const r = new Receiver();
    r.listen(port);
    return r;
  }

  listen(port = this.port): void {
    this.server = Bun.serve({
      hostname: "127.0.0.1",
      port,
      fetch: async (req) => {
        const body = await req.text();
        const headers: Record<string, string> = {};
        req.headers.forEach((value, key) => {
          headers[key] = value;
        });
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {}
        const entry: Received = { path: new URL(req.url).pathname, headers, body, json, status: 0 };
        entry.status = this.respond(this.received.length, entry);
        this.received.push(entry);
        this.waiters = this.waiters.filter((w) => {
          if (this.received.length < w.count) return true;
          w.resolve();
          return false;
        });
        return new Response(entry.status < 300 ? "ok" : "no", { status: entry.status });
      },
    });
    this.port = this.server.port ?? port;
  }

  url(path = "/hook"): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Resolves once `count` requests have arrived in all (fails the test after `timeoutMs`). */
  waitFor(count: number, timeoutMs = 5000): Promise<Received[]> {
    if (this.received.length >= count) return Promise.resolve(this.received.slice(0, count));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`receiver: ${this.received.length} of ${count} requests arrived`)),
        timeoutMs,
      );
      this.waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve(this.received.slice(0, count));
        },
      });
    });
  }

  /** Stops listening (the subscriber is down); `listen()` brings it back on the same port. */
  async stop(): Promise<void> {
    await this.server?.stop(true);
    this.server = undefined;
  }
}
