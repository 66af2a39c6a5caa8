import type { Embedder } from "../src/embedding/embedder.ts";
import type { TenantProtocol } from "../src/protocols/tenant-protocol.ts";
import type { ActorRef } from "../src/runtime/actor-system.ts";
import { syntheticCorpus } from "../test/search/vector/synthetic-corpus.ts";

/** Entries per batch request (the route's maximum) and batches in flight while filling. */
export const BATCH = 1000;
export const IN_FLIGHT = 4;

export interface TenantToken {
  tenant_id: string;
  token: string;
}

/** The synthetic corpus of the search tests (topic clusters, Zipf-like words): documents and queries. */
export function corpus(n: number, queries: number, seed: number) {
  return syntheticCorpus(n, queries, seed);
}

const tagsOf = (content: string) => [`t${content.length % 7}`];

/** Writes one fact through `POST /memory/facts`; returns its id. */
export async function postFact(url: string, token: string, content: string): Promise<string> {
  const res = await fetch(`${url}/memory/facts`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ content, tags: tagsOf(content) }),
  });
  if (res.status !== 201 && res.status !== 200) throw new Error(`fact: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/**
 * Posts `docs` as facts through `POST /memory/facts/batch`, `BATCH` a request, `inFlight`
 * requests at a time (every batch acknowledged after its commit). `afterBatch` runs after each
 * acknowledged batch with the count written so far; answering false stops the fill there (the
 * batches in flight are still awaited). Answers how many were written and the seconds it took.
 */
export async function fillOverHttp(
  url: string,
  token: string,
  docs: string[],
  opts: { inFlight?: number; afterBatch?: (written: number) => boolean } = {},
): Promise<{ written: number; seconds: number }> {
  const started = performance.now();
  let next = 0;
  let written = 0;
  let stopped = false;
  const worker = async () => {
    while (!stopped && next < docs.length) {
      const slice = docs.slice(next, next + BATCH);
      next += slice.length;
      const res = await fetch(`${url}/memory/facts/batch`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ entries: slice.map((content) => ({ content, tags: tagsOf(content) })) }),
      });
      const text = await res.text();
      if (res.status !== 201 && res.status !== 200) throw new Error(`batch: ${res.status} ${text}`);
      written += slice.length;
      if (opts.afterBatch && !opts.afterBatch(written)) stopped = true;
    }
  };
  await Promise.all(Array.from({ length: opts.inFlight ?? IN_FLIGHT }, worker));
  return { written, seconds: (performance.now() - started) / 1000 };
}

/** One `POST /memory/search` (text, limit 10: the service embeds the text, so text + vector), timed. */
export async function timedSearch(url: string, token: string, query: string) {
  const started = performance.now();
  const res = await fetch(`${url}/memory/search`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ query, limit: 10 }),
  });
  const body = (await res.json().catch(() => ({}))) as { results?: unknown[]; pending_vectors?: number };
  const ms = Math.round((performance.now() - started) * 1000) / 1000;
  if (res.status !== 200) throw new Error(`search answered ${res.status}: ${JSON.stringify(body)}`);
  return { ms, results: body.results?.length ?? 0, pending_vectors: body.pending_vectors ?? 0 };
}

/**
 * Writes `docs` as facts through the tenant actor (`entry.createMany`, embeddings computed
 * first, as `MemoryService.createMany` does), `BATCH` per message, `inFlight` at a time.
 * `afterBatch` runs after each acknowledged batch; answering false stops the fill there.
 * Answers how many were written and the seconds it took.
 */
export async function fillThroughActor(
  actor: ActorRef<TenantProtocol>,
  embedder: Embedder,
  docs: string[],
  opts: { inFlight?: number; afterBatch?: (written: number) => boolean } = {},
): Promise<{ written: number; seconds: number }> {
  const started = performance.now();
  let next = 0;
  let written = 0;
  let stopped = false;
  const worker = async () => {
    while (!stopped && next < docs.length) {
      const texts = docs.slice(next, next + BATCH);
      next += texts.length;
      const vectors = await embedder.embed(texts);
      await actor.ask({
        type: "entry.createMany",
        drafts: texts.map((content) => ({ category: "fact" as const, content, tags: tagsOf(content) })),
        createdBy: "bench",
        vectors,
      });
      written += texts.length;
      if (opts.afterBatch && !opts.afterBatch(written)) stopped = true;
    }
  };
  await Promise.all(Array.from({ length: opts.inFlight ?? IN_FLIGHT }, worker));
  return { written, seconds: (performance.now() - started) / 1000 };
}

/**
 * Waits until the service's tenant actor has moved every pending vector into its graph
 * (`GET /tenants/{id}/healthz`, `index.pending` = 0); answers the seconds waited. `abort` is
 * asked between polls: a reason it answers ends the wait with that error.
 */
export async function indexSettled(
  url: string,
  tenant: TenantToken,
  timeoutMs = 300_000,
  abort?: () => string | undefined,
): Promise<number> {
  const started = performance.now();
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const reason = abort?.();
    if (reason) throw new Error(`waiting for the index: ${reason}`);
    const res = await fetch(`${url}/tenants/${tenant.tenant_id}/healthz`, {
      headers: { authorization: `Bearer ${tenant.token}` },
    });
    if (res.status !== 200) throw new Error(`tenant healthz: ${res.status} ${await res.text()}`);
    // Vectors still to be made by the background embedder (local, http), then still to be inserted.
    const health = (await res.json()) as { index: { pending: number; pending_vectors?: number } };
    if (health.index.pending === 0 && (health.index.pending_vectors ?? 0) === 0)
      return (performance.now() - started) / 1000;
    await Bun.sleep(100);
  }
  throw new Error(`tenant ${tenant.tenant_id}: index still pending after ${timeoutMs} ms`);
}
