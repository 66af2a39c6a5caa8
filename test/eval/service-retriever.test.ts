import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { readLocomoFile } from "../../bench/eval/locomo.ts";
import { refusalBeforeStart, startService } from "../../bench/eval/service-retriever.ts";

const tiny = readLocomoFile(join(import.meta.dir, "fixtures", "tiny-locomo.json"), "tiny");

describe("the service as a retriever", () => {
  test("writes a conversation's turns through the HTTP API and maps search results back to turn ids and sessions", async () => {
    const started = await startService("hash", {});
    expect(started.refused).toBeUndefined();
    const retriever = started.retriever!;
    try {
      const search = await retriever.load(tiny.conversations[0]!);
      const ranked = await search("half marathon");
      expect(ranked[0]).toEqual({ id: "D10:1", session: 10 });
      expect(ranked.length).toBeLessThanOrEqual(10);
      // The speaker's name is part of what was written.
      expect((await search("Ana beagle Waffles"))[0]).toEqual({ id: "D1:1", session: 1 });
    } finally {
      await retriever.close();
    }
  });

  test("reports, without starting, the embedders that cannot run on text alone here", () => {
    expect(refusalBeforeStart("http", {})).toContain("MEMORY_RUNTIME_EMBEDDINGS_URL");
    expect(
      refusalBeforeStart("http", { MEMORY_RUNTIME_EMBEDDINGS_URL: "http://127.0.0.1:9/v1" }),
    ).toBeUndefined();
    expect(refusalBeforeStart("client", {})).toContain("vectors from the caller");
    expect(refusalBeforeStart("hash", {})).toBeUndefined();
  });

  test("an embedder the runtime does not know is refused with the runtime's own message", async () => {
    const started = await startService("no-such-embedder", {});
    expect(started.retriever).toBeUndefined();
    expect(started.refused).toMatch(/^the runtime refused to start: MEMORY_RUNTIME_EMBEDDER must be one of/);
  });
});
