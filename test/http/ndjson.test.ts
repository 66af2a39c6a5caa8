import { describe, expect, test } from "bun:test";
import { PayloadTooLarge, ValidationFailed } from "../../src/errors/domain-errors.ts";
import { isNdjson, ndjsonLines } from "../../src/http/ndjson.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/** A body delivered in the given chunks; `pulled()` counts the chunks read. */
function chunked(chunks: Uint8Array[]) {
  let i = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (i < chunks.length) controller.enqueue(chunks[i++]!);
        else controller.close();
      },
      cancel() {
        cancelled = true;
      },
      // No read-ahead: a chunk is pulled only when the reader asks for it.
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled: () => i, cancelled: () => cancelled };
}

const limits = { maxLineBytes: 16, maxBodyBytes: 1024 };

async function lines(chunks: Uint8Array[], l = limits) {
  const out: Array<[number, string]> = [];
  for await (const line of ndjsonLines(chunked(chunks).stream, l)) out.push([line.number, line.text]);
  return out;
}

describe("ndjsonLines", () => {
  test("splits lines across chunk boundaries, numbers them, drops \\r and skips blank lines", async () => {
    const bytes = enc('{"a":1}\r\n\n{"b":"é"}\n  \n{"c":3}');
    // Every split point, including inside the two-byte é.
    for (let cut = 0; cut <= bytes.byteLength; cut++) {
      expect(await lines([bytes.slice(0, cut), bytes.slice(cut)])).toEqual([
        [1, '{"a":1}'],
        [3, '{"b":"é"}'],
        [5, '{"c":3}'],
      ]);
    }
    expect(await lines(Array.from(bytes, (b) => new Uint8Array([b])))).toHaveLength(3);
    expect(await lines([])).toEqual([]);
  });

  test("a line over the limit is a 413 naming it, before the rest is read", async () => {
    const body = chunked([enc('{"a":1}\n'), enc("x".repeat(10)), enc("y".repeat(10)), enc("\nmore\n")]);
    const read = async () => {
      for await (const _ of ndjsonLines(body.stream, limits));
    };
    const error = await read().catch((e) => e);
    expect(error).toBeInstanceOf(PayloadTooLarge);
    expect(error.message).toStartWith("line 2 ");
    expect(body.pulled()).toBe(3);
    expect(body.cancelled()).toBe(true);
    // A last line without its newline is held to the limit too.
    await expect(lines([enc("z".repeat(17))])).rejects.toBeInstanceOf(PayloadTooLarge);
    expect(await lines([enc("z".repeat(16))])).toEqual([[1, "z".repeat(16)]]);
  });

  test("a body over its limit is a 413; invalid UTF-8 is a 422 naming the line", async () => {
    await expect(lines([enc("a\n".repeat(600))])).rejects.toBeInstanceOf(PayloadTooLarge);
    const error = await lines([enc("ok\n"), new Uint8Array([0x7b, 0xff, 0x7d, 0x0a])]).catch((e) => e);
    expect(error).toBeInstanceOf(ValidationFailed);
    expect(error.message).toBe("line 2: not valid UTF-8");
  });

  test("leaving early cancels the rest of the body", async () => {
    const body = chunked([enc("1\n2\n"), enc("3\n"), enc("4\n")]);
    for await (const line of ndjsonLines(body.stream, limits)) if (line.number === 1) break;
    expect(body.cancelled()).toBe(true);
    expect(body.pulled()).toBe(1);
  });

  test("isNdjson reads the media type, parameters and case aside", () => {
    const req = (type?: string) =>
      new Request("http://x/", { method: "POST", headers: type ? { "content-type": type } : {} });
    expect(isNdjson(req("application/x-ndjson"))).toBe(true);
    expect(isNdjson(req("Application/X-NDJSON; charset=utf-8"))).toBe(true);
    expect(isNdjson(req("application/json"))).toBe(false);
    expect(isNdjson(req())).toBe(false);
  });
});
