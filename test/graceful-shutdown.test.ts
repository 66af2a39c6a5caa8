/**
 * Graceful shutdown of a real server process (docs/operations.md, "Graceful shutdown"): SIGTERM
 * while writes are in flight. No sleeps: a write is held open by withholding its body after the
 * server's `100 Continue` (its handler is reading the body, so the request is in flight), and the
 * server's own "stopping" line says when SIGTERM has been taken.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Socket } from "bun";
import {
  adminTokenFor,
  httpCall,
  killHard,
  type ServerProcess,
  startServerProcess,
} from "./helpers/server-process.ts";

const SECRET = "graceful-shutdown-secret-at-least-32-bytes";
const roots: string[] = [];
const servers: ServerProcess[] = [];

afterAll(async () => {
  for (const server of servers) await killHard(server);
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

async function start(
  dataDir: string,
  label: string,
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  const server = await startServerProcess({ dataDir, secret: SECRET, logDir: dataDir, label, env });
  servers.push(server);
  return server;
}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * A request over its own connection whose body is withheld: `continued` resolves when the server
 * answers `100 Continue` (its handler reads the body: the request is in flight); `finish` sends
 * the body and resolves with the final answer; `closed` resolves if the server closes first.
 */
async function heldRequest(base: string, method: string, path: string, token: string, body: string) {
  const { hostname, port } = new URL(base);
  const bytes = new TextEncoder().encode(body);
  let received = "";
  const continued = Promise.withResolvers<void>();
  const answered = Promise.withResolvers<RawAnswer>();
  const closed = Promise.withResolvers<string>();
  const onData = () => {
    if (received.startsWith("HTTP/1.1 100")) {
      const end = received.indexOf("\r\n\r\n");
      if (end < 0) return;
      received = received.slice(end + 4);
      continued.resolve();
    }
    const answer = parseAnswer(received);
    if (answer) answered.resolve(answer);
  };
  const socket: Socket = await Bun.connect({
    hostname,
    port: Number(port),
    socket: {
      data(_socket, chunk) {
        received += new TextDecoder().decode(chunk);
        onData();
      },
      close() {
        closed.resolve(received);
      },
      error(_socket, error) {
        closed.resolve(`error: ${error}`);
      },
    },
  });
  socket.write(
    `${method} ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${bytes.length}\r\nExpect: 100-continue\r\n\r\n`,
  );
  return {
    continued: continued.promise,
    closed: closed.promise,
    async finish(): Promise<RawAnswer> {
      socket.write(bytes);
      const answer = await answered.promise;
      socket.end();
      return answer;
    },
  };
}

/** The final answer once complete (Content-Length bodies, as the server sends JSON), else undefined. */
function parseAnswer(text: string): RawAnswer | undefined {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const [statusLine = "", ...lines] = text.slice(0, end).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = text.slice(end + 4);
  const length = Number(headers["content-length"] ?? Number.NaN);
  if (!Number.isFinite(length) || new TextEncoder().encode(body).length < length) return undefined;
  return { status: Number(statusLine.split(" ")[1]), headers, body };
}

async function tenantOn(server: ServerProcess): Promise<{ tenantId: string; token: string }> {
  const created = await httpCall(server.base, "POST", "/admin/tenants", {
    token: await adminTokenFor(SECRET),
    body: { name: "Graceful Co" },
  });
  expect(created.status).toBe(201);
  return { tenantId: created.body.tenant_id, token: created.body.token };
}

describe("SIGTERM with requests in flight", () => {
  test("they finish with 2xx, /readyz says 503 meanwhile, new requests get 503, exit 0, the writes survive a restart", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "mrt-graceful-"));
    roots.push(dataDir);
    const server = await start(dataDir, "first");
    const { token } = await tenantOn(server);
    expect((await httpCall(server.base, "GET", "/readyz")).body).toEqual({
      status: "ready",
      checks: { accepting: { ok: true }, system_store: { ok: true } },
    });

    const single = await heldRequest(
      server.base,
      "POST",
      "/memory/facts",
      token,
      JSON.stringify({
        content: "written while the server was asked to stop",
        tags: ["graceful"],
      }),
    );
    const batch = await heldRequest(
      server.base,
      "POST",
      "/memory/facts/batch",
      token,
      JSON.stringify({
        entries: [{ content: "the batch's first, in flight at SIGTERM" }, { content: "the batch's second" }],
      }),
    );
    await Promise.all([single.continued, batch.continued]);

    server.proc.kill("SIGTERM");
    await server.printed(/SIGTERM: stopping/);

    // Draining: the two writes hold the server open, so every answer below comes from the drain.
    const ready = await httpCall(server.base, "GET", "/readyz");
    expect(ready.status).toBe(503);
    expect(ready.body.code).toBe("not_ready");
    expect(ready.headers.get("content-type")).toStartWith("application/problem+json");
    expect(ready.body.checks.accepting).toEqual({ ok: false, detail: "the server is shutting down" });
    expect(ready.body.checks.system_store).toEqual({ ok: true });
    expect((await httpCall(server.base, "GET", "/livez")).body).toEqual({ status: "ok" });
    const refused = await httpCall(server.base, "POST", "/memory/facts", {
      token,
      body: { content: "arrived after SIGTERM" },
    });
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe("shutting_down");
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.headers.get("content-type")).toStartWith("application/problem+json");
    expect(server.proc.exitCode).toBeNull();

    const [one, many] = await Promise.all([single.finish(), batch.finish()]);
    expect(one.status).toBe(201);
    expect(many.status).toBe(201);
    const written = [
      JSON.parse(one.body).id,
      ...JSON.parse(many.body).entries.map((e: { id: string }) => e.id),
    ];
    expect(written).toHaveLength(3);

    expect(await server.proc.exited).toBe(0);
    expect(server.output()).toMatch(/stopped in \d+ ms \(2 requests were in flight\)/);

    const again = await start(dataDir, "second");
    for (const id of written) {
      const entry = await httpCall(again.base, "GET", `/memory/facts/${id}`, { token });
      expect({ id, status: entry.status }).toEqual({ id, status: 200 });
    }
    const found = await httpCall(again.base, "POST", "/memory/search", {
      token,
      body: { query: "written while the server was asked to stop", limit: 3 },
    });
    expect(found.body.results.map((r: { entry: { id: string } }) => r.entry.id)).toContain(written[0]);
    again.proc.kill("SIGTERM");
    expect(await again.proc.exited).toBe(0);
  }, 60_000);

  test("a request that does not finish within MEMORY_RUNTIME_SHUTDOWN_TIMEOUT_SECONDS is cut, and the exit is still 0", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "mrt-graceful-cut-"));
    roots.push(dataDir);
    const server = await start(dataDir, "cut", { MEMORY_RUNTIME_SHUTDOWN_TIMEOUT_SECONDS: "1" });
    const { token } = await tenantOn(server);
    const stuck = await heldRequest(
      server.base,
      "POST",
      "/memory/facts",
      token,
      JSON.stringify({ content: "never sent" }),
    );
    await stuck.continued;
    server.proc.kill("SIGTERM");
    expect(await server.proc.exited).toBe(0);
    expect(server.output()).toMatch(/\(1 requests were in flight, 1 cut at the deadline\)/);
    // Its connection was closed without an answer.
    expect(await stuck.closed).toBe("");
  }, 30_000);
});
