/**
 * A 100,000-entry tenant exported and imported through a listening server, in bounded memory: the
 * process's RSS is sampled as each chunk of the export is read and as each chunk of the import is
 * sent (server and client share the process), and must stay within a fixed margin of what it was
 * before. The figures are printed for docs/operations.md and the report.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CATEGORIES } from "../../src/models/category.ts";
import { MAX_BATCH } from "../../src/models/entry.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";

const N = 100_000;
const DIMS = 64;
/** Batches in flight at once while filling. */
const IN_FLIGHT = 4;
const MiB = 1024 * 1024;
const MAX_GROWTH = 200 * MiB;
/** A sample after a full collection each this many bytes of a phase (~12 over the ~92 MiB export). */
const GC_EVERY = 8 * MiB;
const WRITTEN = ["decision", "exception", "fact", "workflow"] as const;

let h: Harness;
let server: ReturnType<typeof Bun.serve>;
let base: string;
let scratch: string;

beforeAll(async () => {
  h = await startHarness({ clock: new ManualClock(), env: { MEMORY_RUNTIME_EMBEDDING_DIMS: String(DIMS) } });
  server = Bun.serve({ port: 0, fetch: (request) => h.app.handle(request), maxRequestBodySize: 2 ** 40 });
  base = `http://localhost:${server.port}`;
  scratch = mkdtempSync(join(tmpdir(), "mrt-export-large-"));
});
afterAll(async () => {
  server.stop(true);
  await h.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** A deterministic vector per entry (an LCG), never zero. */
function vectorOf(i: number): Float32Array {
  const v = new Float32Array(DIMS);
  let x = (i * 2654435761) >>> 0;
  for (let d = 0; d < DIMS; d++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    v[d] = x / 2 ** 32 - 0.5;
  }
  return v;
}

/** A draft per entry, the same whatever way it is written. */
function draftOf(i: number) {
  return {
    category: WRITTEN[i % WRITTEN.length]!,
    content: `entry ${i} on topic ${i % 97} of batch ${Math.floor(i / 1000)}`,
    tags: [`t${i % 13}`],
  };
}

/**
 * The tenant filled through batches of one category (the fill is setup, not what is tested: one
 * transaction per batch instead of a write each), a few batches in flight at once.
 */
async function fill(tenantId: string): Promise<void> {
  const tenant = h.runtime.services.tenant(tenantId);
  const inFlight = new Set<Promise<unknown>>();
  const span = MAX_BATCH * WRITTEN.length;
  for (let start = 0; start < N; start += span) {
    for (let c = 0; c < WRITTEN.length; c++) {
      const ids: number[] = [];
      for (let i = start + c; i < Math.min(start + span, N); i += WRITTEN.length) ids.push(i);
      const write: Promise<unknown> = tenant
        .ask({
          type: "entry.createMany",
          drafts: ids.map(draftOf),
          createdBy: "bulk",
          vectors: ids.map(vectorOf),
        })
        .then((): void => {
          inFlight.delete(write);
        });
      inFlight.add(write);
      if (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
    }
  }
  await Promise.all(inFlight);
}

/**
 * Memory as the process holds it: RSS, and of it what is private (anonymous) and what are mapped
 * file pages (LMDB maps its data file: pages of a vault read or written count towards RSS, though
 * they are the kernel's page cache). Linux tells them apart; elsewhere all of RSS counts as private.
 */
function memory(): { rss: number; private: number } {
  const rss = process.memoryUsage().rss;
  if (process.platform !== "linux") return { rss, private: rss };
  const status = readFileSync("/proc/self/status", "utf8");
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  return { rss, private: kib("RssAnon") + kib("RssShmem") };
}

/**
 * Peaks over a phase, from a sample at each chunk. A sample each GC_EVERY bytes of the phase is
 * taken after a full garbage collection as well: its peak is what the phase holds, not what the
 * collector has yet to free. (By bytes, not chunks: a full collection costs ~200 ms here, and the
 * export comes in ~5 times as many chunks as the import; a dozen evenly spaced ones each way see
 * any growth with the tenant's size.)
 */
class Peaks {
  readonly base = memory();
  rss = this.base.rss;
  private_ = this.base.private;
  held = this.base.private;
  private bytes = 0;
  private collectedAt = 0;

  sample(bytes: number): void {
    const m = memory();
    this.rss = Math.max(this.rss, m.rss);
    this.private_ = Math.max(this.private_, m.private);
    this.bytes += bytes;
    if (this.bytes - this.collectedAt < GC_EVERY) return;
    this.collectedAt = this.bytes;
    Bun.gc(true);
    this.held = Math.max(this.held, memory().private);
  }

  figures() {
    return {
      rss_growth_mib: mib(this.rss - this.base.rss),
      private_growth_mib: mib(this.private_ - this.base.private),
      held_growth_mib: mib(this.held - this.base.private),
    };
  }
}

test(`${N.toLocaleString("en")} entries round trip in bounded memory`, async () => {
  const a = await h.createTenant();
  let t = performance.now();
  await fill(a.tenant_id);
  const fillS = (performance.now() - t) / 1000;
  const auth = { authorization: `Bearer ${h.adminToken}` };

  // Export: streamed to a file, never held.
  Bun.gc(true);
  const exporting = new Peaks();
  t = performance.now();
  const res = await fetch(`${base}/admin/tenants/${a.tenant_id}/export`, { headers: auth });
  expect(res.status).toBe(200);
  expect(res.headers.get("x-export-entries")).toBe(String(N));
  const file = join(scratch, "export.ndjson");
  const sink = Bun.file(file).writer();
  let bytes = 0;
  let head = "";
  let tail = new Uint8Array(0);
  for await (const chunk of res.body!) {
    if (head.length < 4096) head += new TextDecoder().decode(chunk.subarray(0, 4096));
    tail = chunk.byteLength >= 4096 ? chunk.slice(-4096) : concat(tail, chunk).slice(-4096);
    bytes += chunk.byteLength;
    sink.write(chunk);
    exporting.sample(chunk.byteLength);
  }
  await sink.end();
  const exportS = (performance.now() - t) / 1000;

  const header = JSON.parse(head.slice(0, head.indexOf("\n")));
  const lastLines = new TextDecoder().decode(tail).trimEnd().split("\n");
  const trailer = JSON.parse(lastLines[lastLines.length - 1]!);
  expect(header.counts).toMatchObject({ entries: N, embeddings: N, changes: N });
  expect(trailer).toEqual({ type: "trailer", counts: header.counts });

  // Import: the file streamed as the request body, memory sampled as each chunk goes out.
  const b = await h.createTenant();
  Bun.gc(true);
  const importing = new Peaks();
  const reader = Bun.file(file).stream().getReader();
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      importing.sample(sent);
      const { done, value } = await reader.read();
      sent = value?.byteLength ?? 0;
      if (done) controller.close();
      else controller.enqueue(value);
    },
  });
  t = performance.now();
  const imported = await fetch(`${base}/admin/tenants/${b.tenant_id}/import`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/x-ndjson" },
    body,
    duplex: "half",
  } as RequestInit);
  // biome-ignore lint/suspicious/noExplicitAny: the answer, read field by field
  const reply: any = await imported.json();
  const importS = (performance.now() - t) / 1000;
  expect({ status: imported.status, reply }).toMatchObject({ status: 200 });
  expect(reply.imported).toEqual(header.counts);
  // After the reply the tenant is open again, its vector index rebuilt from the vault.
  Bun.gc(true);
  const reopened = mib(memory().private - importing.base.private);

  // Counts and a sample are exactly the source's.
  const ta = h.runtime.services.tenant(a.tenant_id);
  const tb = h.runtime.services.tenant(b.tenant_id);
  const [ha, hb] = [await ta.ask({ type: "tenant.health" }), await tb.ask({ type: "tenant.health" })];
  expect(hb.vault.entries).toBe(N);
  expect(hb.index.vectors).toBe(ha.index.vectors);
  const stats = { type: "tenant.stats", fromDay: "2000-01-01", toDay: "2100-01-01" } as const;
  expect(await tb.ask(stats)).toEqual(await ta.ask(stats));
  const since = { type: "changes.since", after: N - 500, limit: 1000 } as const;
  expect(await tb.ask(since)).toEqual(await ta.ask(since));
  const now = h.runtime.stores.clock.now();
  const page = { type: "entry.list", limit: 100, validAt: now, asOf: now, includeEmbedding: false } as const;
  for (const category of CATEGORIES) {
    const [la, lb] = [await ta.ask({ ...page, category }), await tb.ask({ ...page, category })];
    expect(lb).toEqual(retenanted(la, a.tenant_id, b.tenant_id));
  }
  const ids = (await ta.ask({ ...page, category: "fact", limit: 500 })).items.map((e) => e.id);
  for (const id of ids.filter((_, i) => i % 10 === 0)) {
    const get = { type: "entry.get", category: "fact", id, includeEmbedding: true } as const;
    expect(await tb.ask(get)).toEqual({ ...(await ta.ask(get)), tenant_id: b.tenant_id });
  }
  const search = {
    type: "memory.search" as const,
    text: "entry on topic 42",
    vector: vectorOf(4242),
    categories: [...CATEGORIES],
    tags: [],
    tagsAny: [],
    validAt: now,
    asOf: now,
    limit: 10,
  };
  const [sa, sb] = [await ta.ask(search), await tb.ask(search)];
  expect(sa.results.length).toBe(10);
  expect(sb).toEqual(retenanted(sa, a.tenant_id, b.tenant_id));

  const figures = {
    entries: N,
    dims: DIMS,
    export_bytes: bytes,
    fill_s: round(fillS),
    export_s: round(exportS),
    export_entries_per_s: Math.round(N / exportS),
    import_s: round(importS),
    import_entries_per_s: Math.round(N / importS),
    import_took_ms: reply.took_ms,
    export_memory: exporting.figures(),
    import_memory: importing.figures(),
    after_import_reopened_private_growth_mib: reopened,
  };
  console.log(`export/import figures ${JSON.stringify(figures)}`);
  // What the phases hold stays within a fixed margin, whatever the tenant's size.
  expect(exporting.held - exporting.base.private).toBeLessThan(MAX_GROWTH);
  expect(importing.held - importing.base.private).toBeLessThan(MAX_GROWTH);
  // Uncollected garbage and the vault's mapped pages included: still far from the export's size.
  expect(exporting.rss - exporting.base.rss).toBeLessThan(2 * MAX_GROWTH);
  expect(importing.rss - importing.base.rss).toBeLessThan(2 * MAX_GROWTH);
}, 120_000);

function retenanted<T>(value: T, from: string, to: string): T {
  return JSON.parse(JSON.stringify(value).replaceAll(from, to));
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a);
  out.set(b, a.byteLength);
  return out;
}

const round = (x: number) => Math.round(x * 100) / 100;
const mib = (bytes: number) => round(bytes / MiB);
