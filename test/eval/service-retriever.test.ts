import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { expandSystems } from "../../bench/eval/eval-systems.ts";
import { readLocomoFile } from "../../bench/eval/locomo.ts";
import { ServiceClient } from "../../bench/eval/service-client.ts";
import {
  embedded,
  refusalBeforeStart,
  startRuntime,
  startService,
} from "../../bench/eval/service-retriever.ts";

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

  test("tiered is measured at two moments: the table's vectors only, then once the model's replaced them", async () => {
    expect(expandSystems(["hash", "tiered", "local"])).toEqual([
      "hash",
      "tiered:ingest",
      "tiered:upgraded",
      "local",
    ]);
    const afterLoad = async (system: string) => {
      const { started } = await startRuntime(system, {});
      try {
        const rt = started!;
        const client = new ServiceClient(rt.runtime.app);
        const tenant = await client.expect<{ tenant_id: string; token: string }>(
          [201],
          "POST",
          "/admin/tenants",
          rt.admin,
          {
            name: system,
          },
        );
        await client.expect([201], "POST", "/memory/facts", tenant.token, {
          content: "Ana adopted a beagle",
        });
        await embedded(client, rt.admin, tenant.tenant_id, rt.waitForUpgrades);
        const path = `/tenants/${tenant.tenant_id}/healthz`;
        return (await client.expect<{ index: object }>([200], "GET", path, rt.admin)).index;
      } finally {
        await started?.close();
      }
    };
    // Held back, the model has upgraded nothing: the entry is searched by the table's vector.
    expect(await afterLoad("tiered:ingest")).toMatchObject({
      vectors: 1,
      pending_vectors: 0,
      pending_upgrades: 1,
    });
    // The load waits for the upgrade: the entry holds the model's vector.
    expect(await afterLoad("tiered:upgraded")).toMatchObject({
      vectors: 1,
      pending_vectors: 0,
      pending_upgrades: 0,
    });
  });
});
