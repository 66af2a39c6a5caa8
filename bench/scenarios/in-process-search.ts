import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { CATEGORIES } from "../../src/models/category.ts";
import { latencies } from "../load.ts";
import { corpus } from "../search-fill.ts";

/**
 * Hybrid search through the tenant actor (filters, bi-temporal views, vector + BM25 fusion), with
 * the HTTP layer left out. Entries are written through the actor exactly as the route does.
 */
export async function inProcessSearch(sizes: number[]) {
  const dataDir = mkdtempSync(join(tmpdir(), "mrt-bench-ip-"));
  const env = {
    MEMORY_RUNTIME_JWT_SECRET: "in-process-bench-secret-0123456789abcdef",
    MEMORY_RUNTIME_DATA_DIR: dataDir,
  };
  const runtime = createRuntime({ config: loadConfig(env), env, log: () => undefined });
  const { deps } = runtime;
  const out: Array<Record<string, number>> = [];
  try {
    const tenant = await deps.system.ask({ type: "tenant.create", name: "in-process" });
    const actor = deps.tenant(tenant.tenant_id);
    const { documents, queries } = corpus(sizes[sizes.length - 1]!, 500, 11);
    let filled = 0;
    for (const size of sizes) {
      const t = performance.now();
      const writes: Promise<unknown>[] = [];
      for (let i = filled; i < size; i++) {
        const content = documents[i]!;
        const [vector] = await deps.embedder.embed([content]);
        writes.push(
          actor.ask({
            type: "entry.create",
            draft: { category: "fact", content },
            createdBy: "bench",
            vector,
          }),
        );
        if (writes.length >= 512) await Promise.all(writes.splice(0));
      }
      await Promise.all(writes);
      const writesPerSecond = Math.round((size - filled) / ((performance.now() - t) / 1000));
      filled = size;
      await actor.ask({ type: "index.flush", all: true });
      const search = async (i: number) => {
        const text = queries[i % queries.length]!;
        const [vector] = await deps.embedder.embed([text]);
        const now = Date.now();
        return actor.ask({
          type: "memory.search",
          text,
          vector,
          categories: [...CATEGORIES],
          tags: [],
          tagsAny: [],
          validAt: now,
          asOf: now,
          limit: 10,
        });
      };
      out.push({ entries: size, writes_per_s: writesPerSecond, ...(await latencies(500, search)) });
    }
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return out;
}
