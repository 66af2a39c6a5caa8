/**
 * The background embedder under load (issue 20, item 4), in a service process on `embedder`
 * (`local` by default: the one whose vectors cost milliseconds):
 *
 * - webhooks: verified payments deliveries (1 event each) at 32 connections for the load's
 *   duration: events/s, answered without waiting for any vector. Meanwhile a sampler sends one
 *   delivery every SAMPLE_EVERY_MS and notes when it was answered; after the load, until the
 *   backlog is empty: the vectors made a second while it drained, and each sampled entry's lag
 *   (from its answer until its vector is stored and readable);
 * - search: a tenant of `entries` facts through the batch route; `POST /memory/search` (text only,
 *   limit 10, sequential) while its backlog drains (the model busy with entries' batches), then
 *   once embedded with distinct queries (each embedded) and with repeated ones (the query cache).
 */
import { load } from "../load.ts";
import { type Started, startService, stop } from "../processes.ts";
import { corpus, fillOverHttp, type TenantToken } from "../search-fill.ts";
import { adminToken, BENCH_SECRET, createTenant, httpSearch } from "../service-api.ts";
import { round } from "../stats.ts";
import { paymentsDelivery, WEBHOOK_SECRETS } from "./webhooks.ts";

const SAMPLE_EVERY_MS = 100;
const POLL_MS = 100;
const DRAIN_TIMEOUT_MS = 30 * 60_000;
const REPEATED_QUERIES = 20;

export interface BackgroundEmbeddingResult {
  embedder: string;
  webhook_events_per_s: number;
  /** Entries waiting for their vector when the load ended. */
  backlog_at_load_end: number;
  drain_s: number;
  embed_vectors_per_s: number;
  lag_p50_s: number;
  lag_p99_s: number;
  lag_max_s: number;
  lag_samples: number;
  search_entries: number;
  /** Searches while the tenant's backlog drains (the model also embedding entries). */
  search_draining_p50_ms: number;
  search_draining_p99_ms: number;
  search_p50_ms: number;
  search_p99_ms: number;
  search_repeated_p50_ms: number;
  search_repeated_p99_ms: number;
}

interface Health {
  index: { pending_vectors: number; embedder?: { embedded: number; last_error?: string } };
}

async function health(url: string, tenant: TenantToken): Promise<Health> {
  const res = await fetch(`${url}/tenants/${tenant.tenant_id}/healthz`, {
    headers: { authorization: `Bearer ${tenant.token}` },
  });
  if (res.status !== 200) throw new Error(`tenant healthz: ${res.status} ${await res.text()}`);
  return (await res.json()) as Health;
}

/** Polls until the tenant has no entry waiting for its vector; `each` sees every health read. */
async function drained(url: string, tenant: TenantToken, each: (h: Health) => void = () => undefined) {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  for (;;) {
    const h = await health(url, tenant);
    each(h);
    if (h.index.pending_vectors === 0) return h;
    if (Date.now() > deadline) throw new Error(`backlog not drained: ${JSON.stringify(h.index)}`);
    await Bun.sleep(POLL_MS);
  }
}

/** A delivery sent by hand: when it was answered, and the entry it wrote. */
interface Sample {
  answeredAt: number;
  id: string;
  lagS?: number;
}

async function sendSample(url: string, tenantId: string): Promise<Sample> {
  const { body, headers } = paymentsDelivery();
  const res = await fetch(`${url}/webhooks/payments/${tenantId}`, { method: "POST", headers, body });
  const answeredAt = performance.now();
  const summary = (await res.json()) as { entries?: string[] };
  if (res.status !== 200 || !summary.entries?.[0]) throw new Error(`sample delivery: ${res.status}`);
  return { answeredAt, id: summary.entries[0] };
}

async function hasVector(url: string, token: string, id: string): Promise<boolean> {
  const res = await fetch(`${url}/memory/exceptions/${id}?include=embedding`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return ((await res.json()) as { embedding?: number[] }).embedding?.length !== 0;
}

/** Marks the oldest samples whose vector is readable (the backlog is worked on oldest first). */
async function resolveSamples(url: string, token: string, samples: Sample[]): Promise<void> {
  for (const sample of samples) {
    if (sample.lagS !== undefined) continue;
    if (!(await hasVector(url, token, sample.id))) return;
    sample.lagS = (performance.now() - sample.answeredAt) / 1000;
  }
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function timed(n: number, query: (i: number) => string, url: string, token: string) {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const status = await httpSearch(url, token, query(i));
    samples.push(performance.now() - t);
    if (status !== 200) throw new Error(`search answered ${status}`);
  }
  samples.sort((a, b) => a - b);
  return { p50: round(quantile(samples, 0.5)), p99: round(quantile(samples, 0.99)) };
}

async function webhookLag(service: Started, tenant: TenantToken, log: (line: string) => void) {
  // The sampler runs beside the load; its deliveries are part of the backlog it measures.
  const samples: Sample[] = [];
  let loading = true;
  const sampler = (async () => {
    while (loading) {
      samples.push(await sendSample(service.url, tenant.tenant_id));
      await Bun.sleep(SAMPLE_EVERY_MS);
    }
  })();
  const started = performance.now();
  const before = (await health(service.url, tenant)).index.embedder?.embedded ?? 0;
  const result = await load({
    name: "service POST /webhooks/payments (1 event, verified), background embedder",
    url: `${service.url}/webhooks/payments/${tenant.tenant_id}`,
    method: "POST",
    connections: 32,
    perRequest: paymentsDelivery,
  });
  loading = false;
  await sampler;
  const atEnd = (await health(service.url, tenant)).index.pending_vectors;
  log(`  webhooks: ${result.rps} events/s; ${atEnd} entries waiting for their vector at the load's end`);
  const loadEnd = performance.now();
  const last = await drained(
    service.url,
    tenant,
    () => void resolveSamples(service.url, tenant.token, samples),
  );
  const drainedAt = performance.now();
  await resolveSamples(service.url, tenant.token, samples);
  const made = (last.index.embedder?.embedded ?? 0) - before;
  const lags = samples
    .map((s) => s.lagS ?? Number.NaN)
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  return {
    webhook_events_per_s: result.rps,
    backlog_at_load_end: atEnd,
    drain_s: round((drainedAt - loadEnd) / 1000),
    embed_vectors_per_s: Math.round(made / ((drainedAt - started) / 1000)),
    lag_p50_s: round(quantile(lags, 0.5)),
    lag_p99_s: round(quantile(lags, 0.99)),
    lag_max_s: round(lags[lags.length - 1] ?? Number.NaN),
    lag_samples: lags.length,
  };
}

async function searchLatency(service: Started, entries: number, log: (line: string) => void) {
  const tenant = await createTenant(service.url, await adminToken(), "embedding-search");
  const { documents, queries } = corpus(entries, 600, 11);
  await fillOverHttp(service.url, tenant.token, documents);
  const draining = await timed(100, (i) => queries[500 + i]!, service.url, tenant.token);
  log(`  ${entries} entries written; searching while they are embedded: p99 ${draining.p99} ms`);
  await drained(service.url, tenant);
  const distinct = await timed(500, (i) => queries[i]!, service.url, tenant.token);
  const repeated = await timed(500, (i) => queries[i % REPEATED_QUERIES]!, service.url, tenant.token);
  return {
    search_entries: entries,
    search_draining_p50_ms: draining.p50,
    search_draining_p99_ms: draining.p99,
    search_p50_ms: distinct.p50,
    search_p99_ms: distinct.p99,
    search_repeated_p50_ms: repeated.p50,
    search_repeated_p99_ms: repeated.p99,
  };
}

export async function backgroundEmbedding(o: {
  embedder?: string;
  entries: number;
  log: (line: string) => void;
}): Promise<BackgroundEmbeddingResult> {
  const embedder = o.embedder ?? "local";
  const setup = await startService(BENCH_SECRET, { env: { MEMORY_RUNTIME_EMBEDDER: embedder } });
  let service: Started | undefined;
  try {
    // Webhook secrets are per tenant and read at start: the tenant is made first, then a restart.
    const hooked = await createTenant(setup.url, await adminToken(), "embedding-webhooks");
    await stop(setup);
    const env: Record<string, string> = { MEMORY_RUNTIME_EMBEDDER: embedder };
    for (const [base, value] of Object.entries(WEBHOOK_SECRETS)) env[`${base}_${hooked.tenant_id}`] = value;
    service = await startService(BENCH_SECRET, { dataDir: setup.dataDir, env });
    const webhooks = await webhookLag(service, hooked, o.log);
    return { embedder, ...webhooks, ...(await searchLatency(service, o.entries, o.log)) };
  } finally {
    await stop(setup);
    if (service) await stop(service);
  }
}
