/**
 * What Bun's HTTP layer refuses before the app sees it (docs/api.md, "Refused before the app"):
 * an empty answer without `X-Request-Id`, and the connection closed. Raw requests over a socket,
 * since a client library refuses to send them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime, type MemoryRuntime } from "../../src/lib.ts";
import { TEST_SECRET } from "../helpers/harness.ts";

let runtime: MemoryRuntime;
let port: number;
let dataDir: string;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), "mrt-http-layer-"));
  runtime = createRuntime({
    env: {
      MEMORY_RUNTIME_JWT_SECRET: TEST_SECRET,
      MEMORY_RUNTIME_DATA_DIR: dataDir,
      MEMORY_RUNTIME_EMBEDDER: "hash",
    },
    log: () => undefined,
  });
  port = runtime.listen(0).port;
});

afterAll(async () => {
  await runtime.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Sends `bytes` and resolves with everything the server wrote until it closed the connection. */
async function raw(bytes: string): Promise<string> {
  const closed = Promise.withResolvers<string>();
  let received = "";
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(_socket, chunk) {
        received += new TextDecoder().decode(chunk);
        // A complete answer the app sent (it keeps the connection): close it ourselves.
        if (/\r\n\r\n[\s\S]*\}$/.test(received)) _socket.end();
      },
      close: () => closed.resolve(received),
      error: () => closed.resolve(received),
    },
  });
  socket.write(bytes);
  return closed.promise;
}

const get = (headerLine: string, version = "HTTP/1.1") =>
  `GET /healthz ${version}\r\nHost: x\r\n${headerLine}\r\n\r\n`;

describe("refused by Bun before the app", () => {
  test("a header value with a control byte: 400, empty, no X-Request-Id, connection closed", async () => {
    for (const value of ["a\x01b", "a\x00b", "a\x1fb", "a\rb"]) {
      const answer = await raw(get(`X-Test: ${value}`));
      expect({ value, answer }).toEqual({
        value,
        answer: "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n",
      });
    }
  });

  test("an HTTP version other than 1.0 and 1.1: 505, empty", async () => {
    for (const version of ["HTTP/1.2", "HTTP/2.0"]) {
      const answer = await raw(get("X-Test: a", version));
      expect({ version, answer }).toEqual({
        version,
        answer: "HTTP/1.1 505 HTTP Version Not Supported\r\nConnection: close\r\n\r\n",
      });
    }
  });

  test("headers over Bun's limit: 431, empty", async () => {
    const answer = await raw(get(`X-Big: ${"a".repeat(64 * 1024)}`));
    expect(answer).toStartWith("HTTP/1.1 431");
    expect(answer).not.toContain("x-request-id");
  });

  test("a tab or a byte above 0x7F in a header value reaches the app", async () => {
    for (const value of ["a\tb", "a\xffb", "a\x7fb"]) {
      const answer = await raw(get(`X-Test: ${value}`));
      expect({ value, status: answer.slice(0, 15) }).toEqual({ value, status: "HTTP/1.1 200 OK" });
      expect(answer).toContain("x-request-id:");
    }
  });
});
