/**
 * One embedder's tier figures under load (issues 20 and 30), in a service process on `embedder`
 * (the real runtime: `bun run src/index.ts`, over HTTP):
 *
 * - webhooks: verified payments deliveries (1 event each) at 32 connections for the load's
 *   duration: events/s; the vectors stored in the commits meanwhile (`index.vectors` of the
 *   tenant's health, before and after: the first tier of `hash`, `static` and `tiered`), a second.
 *   A sampler sends one delivery every SAMPLE_EVERY_MS beside the load and notes when it was
 *   answered; after the load, until the backlog is empty (no entry waiting for a vector, none for
 *   an upgrade): the model's vectors made a second while it drained, and each sampled entry's lag
 *   from its answer until its first vector is readable (`?include=embedding`) and, under
 *   `tiered`, until that vector is the model's (it is no longer the table's vector of the entry's
 *   text, computed here by the same table); under `local` the two are one;
 * - search and memory: bench/scenarios/tier-search.ts, on the same service afterwards.
 */
import { StaticEmbedder } from "../../src/embedding/static-embedder.ts";
import { load } from "../load.ts";
import { type Started, startService, stop } from "../processes.ts";
import type { TenantToken } from "../search-fill.ts";
import { adminToken, BENCH_SECRET, createTenant } from "../service-api.ts";
import { round } from "../stats.ts";
import { type TierSearch, tierSearch } from "./tier-search.ts";
import { paymentsDelivery, WEBHOOK_SECRETS } from "./webhooks.ts";

const SAMPLE_EVERY_MS = 100;
const POLL_MS = 100;
const DRAIN_TIMEOUT_MS = 30 * 60_000;
/**
 * A stored vector further than this from the table's vector of its text, in any component, is
 * no longer the table's (the model's vector of the same text differs by ~0.1–0.15 in its largest).
 */
const SAME_VECTOR = 0.01;

export interface BackgroundEmbeddingResult extends TierSearch {
  embedder: string;
  webhook_events_per_s: number;
  /** The `hash` baseline's rate measured just before (embedding-figures.ts), when there is one. */
  hash_baseline_events_per_s?: number;
  /** Vectors stored in the writes' own commits during the load, a second (0 under `local`). */
  commit_vectors_per_s: number;
  /** Entries waiting for their vector, or their model's vector, when the load ended. */
  backlog_at_load_end: number;
  drain_s: number;
  /** The background embedder's vectors a second, from the load's start until drained. */
  embed_vectors_per_s: number;
  /** Answer → a vector readable (any tier). */
  first_lag_p50_s: number;
  first_lag_p99_s: number;
  /** Answer → the model's vector readable (`local`, `tiered`; absent otherwise). */
  lag_p50_s?: number;
  lag_p99_s?: number;
  lag_max_s?: number;
  lag_samples: number;
}

export interface Health {
  index: {
    vectors: number;
    pending: number;
    pending_vectors: number;
    pending_upgrades?: number;
    embedder?: { embedded: number; last_error?: string };
  };
}

export async function health(url: string, tenant: TenantToken): Promise<Health> {
  const res = await fetch(`${url}/tenants/${tenant.tenant_id}/healthz`, {
    headers: { authorization: `Bearer ${tenant.token}` },
  });
  if (res.status !== 200) throw new Error(`tenant healthz: ${res.status} ${await res.text()}`);
  return (await res.json()) as Health;
}

/** Entries waiting for a vector or for the model's. */
export const backlogOf = (h: Health) => h.index.pending_vectors + (h.index.pending_upgrades ?? 0);

/** Polls until the tenant's backlog is empty; `each` sees every health read. */
export async function drained(url: string, tenant: TenantToken, each: (h: Health) => void = () => undefined) {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  for (;;) {
    const h = await health(url, tenant);
    each(h);
    if (backlogOf(h) === 0) return h;
    if (Date.now() > deadline) throw new Error(`backlog not drained: ${JSON.stringify(h.index)}`);
    await Bun.sleep(POLL_MS);
  }
}

/** A delivery sent by hand: when it was answered, the entry it wrote, and its lags once seen. */
interface Sample {
  answeredAt: number;
  id: string;
  firstS?: number;
  modelS?: number;
}

async function sendSample(url: string, tenantId: string): Promise<Sample> {
  const { body, headers } = paymentsDelivery();
  const res = await fetch(`${url}/webhooks/payments/${tenantId}`, { method: "POST", headers, body });
  const answeredAt = performance.now();
  const summary = (await res.json()) as { entries?: string[] };
  if (res.status !== 200 || !summary.entries?.[0]) throw new Error(`sample delivery: ${res.status}`);
  return { answeredAt, id: summary.entries[0] };
}

function differs(a: Float32Array, b: number[]): boolean {
  return a.some((v, i) => Math.abs(v - b[i]!) > SAME_VECTOR);
}

/** The tiers an embedder's stored vector goes through: the first, and whether a model's follows. */
function tiersOf(embedder: string) {
  const table = embedder === "tiered" ? new StaticEmbedder() : undefined;
  return {
    /** Whether a model's vector comes later (its lag is measured): `local` (its only one), `tiered`. */
    model: embedder === "local" || embedder === "http" || table !== undefined,
    /** Whether a stored vector is the model's: under `tiered`, one that is not the table's. */
    isModel: (content: string, embedding: number[]) => !table || differs(table.embedSync(content), embedding),
  };
}

async function storedVector(url: string, token: string, id: string) {
  const res = await fetch(`${url}/memory/exceptions/${id}?include=embedding`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const entry = (await res.json()) as { content: string; embedding?: number[] };
  return entry.embedding?.length ? { content: entry.content, embedding: entry.embedding } : undefined;
}

/**
 * Marks the oldest samples whose first vector, then whose model's vector, is readable (each tier
 * is stored oldest first: the commits in order, the backlog worked on oldest first).
 */
async function resolveSamples(
  url: string,
  token: string,
  samples: Sample[],
  tiers: ReturnType<typeof tiersOf>,
) {
  for (const sample of samples) {
    if (sample.firstS !== undefined) continue;
    if (!(await storedVector(url, token, sample.id))) break;
    sample.firstS = (performance.now() - sample.answeredAt) / 1000;
  }
  if (!tiers.model) return;
  for (const sample of samples) {
    if (sample.modelS !== undefined) continue;
    const stored = await storedVector(url, token, sample.id);
    if (!stored || !tiers.isModel(stored.content, stored.embedding)) return;
    sample.modelS = (performance.now() - sample.answeredAt) / 1000;
  }
}

export const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

const sortedOf = (values: (number | undefined)[]) =>
  values.filter((v): v is number => v !== undefined && Number.isFinite(v)).sort((a, b) => a - b);

async function webhookLag(
  service: Started,
  tenant: TenantToken,
  embedder: string,
  log: (line: string) => void,
) {
  // The sampler runs beside the load; its deliveries are part of the backlog it measures.
  const tiers = tiersOf(embedder);
  const samples: Sample[] = [];
  const resolve = () => resolveSamples(service.url, tenant.token, samples, tiers);
  let loading = true;
  // Each sample is looked at once answered: a vector stored in its commit is readable at once.
  const sampler = (async () => {
    while (loading) {
      samples.push(await sendSample(service.url, tenant.tenant_id));
      await resolve();
      await Bun.sleep(SAMPLE_EVERY_MS);
    }
  })();
  const started = performance.now();
  const before = (await health(service.url, tenant)).index;
  const result = await load({
    name: `service POST /webhooks/payments (1 event, verified), ${embedder}`,
    url: `${service.url}/webhooks/payments/${tenant.tenant_id}`,
    method: "POST",
    connections: 32,
    perRequest: paymentsDelivery,
  });
  const loadS = (performance.now() - started) / 1000;
  loading = false;
  await sampler;
  const atEnd = (await health(service.url, tenant)).index;
  log(`  webhooks: ${result.rps} events/s; backlog ${backlogOf({ index: atEnd })} at the load's end`);
  const loadEnd = performance.now();
  const last = await drained(service.url, tenant, () => void resolve());
  const drainedAt = performance.now();
  await resolve();
  const made = (last.index.embedder?.embedded ?? 0) - (before.embedder?.embedded ?? 0);
  const first = sortedOf(samples.map((s) => s.firstS));
  const model = sortedOf(samples.map((s) => s.modelS));
  return {
    webhook_events_per_s: result.rps,
    // Under `local` the commits store none: every vector counted there is the background's.
    commit_vectors_per_s: embedder === "local" ? 0 : Math.round((atEnd.vectors - before.vectors) / loadS),
    backlog_at_load_end: backlogOf({ index: atEnd }),
    drain_s: round((drainedAt - loadEnd) / 1000),
    embed_vectors_per_s: Math.round(made / ((drainedAt - started) / 1000)),
    first_lag_p50_s: round(quantile(first, 0.5)),
    first_lag_p99_s: round(quantile(first, 0.99)),
    ...(tiers.model
      ? {
          lag_p50_s: round(quantile(model, 0.5)),
          lag_p99_s: round(quantile(model, 0.99)),
          lag_max_s: round(model.at(-1) ?? Number.NaN),
        }
      : {}),
    lag_samples: first.length,
  };
}

/** A service on `embedder` whose tenant takes verified webhooks (its secrets are read at start). */
export async function webhookService(embedder: string) {
  const setup = await startService(BENCH_SECRET, { env: { MEMORY_RUNTIME_EMBEDDER: embedder } });
  try {
    // Webhook secrets are per tenant and read at start: the tenant is made first, then a restart.
    const hooked = await createTenant(setup.url, await adminToken(), "embedding-webhooks");
    const env: Record<string, string> = { MEMORY_RUNTIME_EMBEDDER: embedder };
    for (const [base, value] of Object.entries(WEBHOOK_SECRETS)) env[`${base}_${hooked.tenant_id}`] = value;
    await stop(setup);
    return { service: await startService(BENCH_SECRET, { dataDir: setup.dataDir, env }), hooked };
  } finally {
    await stop(setup);
  }
}

/**
 * The webhook rate of a `hash` service kept for the whole run, measured right before each
 * embedder's own load: on a shared machine the load of the minute moves the rate more than the
 * embedder does, so each embedder's ratio is to the baseline of its own minute.
 */
export async function webhookBaseline() {
  const { service, hooked } = await webhookService("hash");
  return {
    rate: async () =>
      (
        await load({
          name: "service POST /webhooks/payments (1 event, verified), hash baseline",
          url: `${service.url}/webhooks/payments/${hooked.tenant_id}`,
          method: "POST",
          connections: 32,
          perRequest: paymentsDelivery,
        })
      ).rps,
    close: () => stop(service),
  };
}

export async function backgroundEmbedding(o: {
  embedder?: string;
  entries: number[];
  log: (line: string) => void;
}): Promise<BackgroundEmbeddingResult> {
  const embedder = o.embedder ?? "local";
  const { service, hooked } = await webhookService(embedder);
  try {
    const webhooks = await webhookLag(service, hooked, embedder, o.log);
    return { embedder, ...webhooks, ...(await tierSearch(service, embedder, o.entries, o.log)) };
  } finally {
    await stop(service);
  }
}
