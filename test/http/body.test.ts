import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BadRequest, PayloadTooLarge } from "../../src/errors/domain-errors.ts";
import { parseJsonBytes, readBodyCapped } from "../../src/http/body.ts";
import { BASE, type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

const MiB = 1024 * 1024;

function streamOf(bytes: Uint8Array, chunk = 64 * 1024): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + chunk));
      offset += chunk;
    },
  });
}

function jsonOfSize(size: number): Uint8Array {
  // {"name":"xxxx..."} padded to exactly `size` bytes.
  const overhead = '{"name":""}'.length;
  return new TextEncoder().encode(JSON.stringify({ name: "x".repeat(size - overhead) }));
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe("body limit (1 MiB)", () => {
  test("a body over the limit with Content-Length is 413", async () => {
    const raw = jsonOfSize(MiB + 1);
    const res = await h.call("POST", "/admin/tenants", {
      token: h.adminToken,
      raw,
      headers: { "content-type": "application/json" },
    });
    await expectProblem(res, 413, "payload_too_large");
  });

  test("a chunked body (no Content-Length) over the limit is 413", async () => {
    const req = new Request(`${BASE}/admin/tenants`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.adminToken}`, "content-type": "application/json" },
      body: streamOf(jsonOfSize(2 * MiB)),
      duplex: "half",
    } as RequestInit);
    expect(req.headers.get("content-length")).toBeNull();
    await expectProblem(await h.app.handle(req), 413, "payload_too_large");
  });

  test("a body of exactly the limit is read (and then fails validation, not the size check)", async () => {
    const raw = jsonOfSize(MiB);
    expect(raw.byteLength).toBe(MiB);
    const res = await h.call("POST", "/admin/tenants", {
      token: h.adminToken,
      raw,
      headers: { "content-type": "application/json" },
    });
    await expectProblem(res, 422, "validation_failed");
    const streamed = new Request(`${BASE}/admin/tenants`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.adminToken}`, "content-type": "application/json" },
      body: streamOf(raw),
      duplex: "half",
    } as RequestInit);
    await expectProblem(await h.app.handle(streamed), 422, "validation_failed");
  });

  test("nothing was created by oversize requests", async () => {
    const { body } = await h.json("GET", "/admin/tenants", { token: h.adminToken });
    expect(body.tenants).toEqual([]);
  });
});

describe("readBodyCapped / parseJsonBytes", () => {
  test("reads a body under the limit exactly", async () => {
    const bytes = new TextEncoder().encode('{"a":1}');
    const out = await readBodyCapped(new Request(BASE, { method: "POST", body: bytes }), 100);
    expect(new TextDecoder().decode(out)).toBe('{"a":1}');
  });

  test("concatenates a multi-chunk stream", async () => {
    const bytes = new Uint8Array(300_000).map((_, i) => i % 251);
    const req = new Request(BASE, {
      method: "POST",
      body: streamOf(bytes, 1000),
      duplex: "half",
    } as RequestInit);
    const out = await readBodyCapped(req, 1_000_000);
    expect(out.byteLength).toBe(300_000);
    expect(Buffer.from(out).equals(Buffer.from(bytes))).toBe(true);
  });

  test("refuses a declared length over the limit and a stream crossing it", async () => {
    const big = new Request(BASE, { method: "POST", body: new Uint8Array(101) });
    await expect(readBodyCapped(big, 100)).rejects.toBeInstanceOf(PayloadTooLarge);
    const req = new Request(BASE, {
      method: "POST",
      body: streamOf(new Uint8Array(1000), 10),
      duplex: "half",
    } as RequestInit);
    await expect(readBodyCapped(req, 100)).rejects.toBeInstanceOf(PayloadTooLarge);
  });

  test("no body is empty bytes; empty bytes parse to undefined", async () => {
    expect((await readBodyCapped(new Request(BASE), 10)).byteLength).toBe(0);
    expect(parseJsonBytes(new Uint8Array(0))).toBeUndefined();
  });

  test("parses JSON and refuses non-JSON and non-UTF-8 with BadRequest", () => {
    expect(parseJsonBytes(new TextEncoder().encode('{"a":[1,2]}'))).toEqual({ a: [1, 2] });
    expect(() => parseJsonBytes(new TextEncoder().encode("{"))).toThrow(BadRequest);
    expect(() => parseJsonBytes(new Uint8Array([0xff, 0xfe]))).toThrow(BadRequest);
  });
});
