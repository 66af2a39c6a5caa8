import type { DeliveryCounts } from "../ingest/delivery-counters.ts";
/**
 * What the runtime's own parts report at scrape time: the actors' mailboxes, the background
 * embedder's backlog, and the per-source delivery counters the dashboard already keeps. Read only
 * when Prometheus scrapes; nothing is counted twice on the request path.
 */
import type { Sample, Telemetry } from "../telemetry/telemetry.ts";

export interface RuntimeFigures {
  actors: { census(): Iterable<{ kind: string; active: number; depth: number; restarts: number }> };
  embedding: { backlog(): number; inFlight(): number };
  /** The ingest pipeline's counters (src/ingest/delivery-counters.ts). */
  deliveries: { snapshot(): Iterable<DeliveryCounts> };
  /** The webhook operations' figures (src/ingest/webhook-figures.ts). */
  operations?: { snapshot(): OperationFigures };
}

/** Paused sources and held events, summed per source; pauses, releases, replays, discards and purges since start. */
export interface OperationFigures {
  sources: Iterable<{ source: string; paused: number; held: number }>;
  changes: Iterable<{ source: string; status: string; count: number }>;
  released: Iterable<{ source: string; outcome: string; count: number }>;
  replays: Iterable<{ status: string; count: number }>;
  purged: Iterable<{ record: string; count: number }>;
  discards: Iterable<{ source: string; count: number }>;
}

/** Registers every source above with `telemetry` (replacing a previous runtime's, after a restart). */
export function sampleRuntime(telemetry: Telemetry, figures: RuntimeFigures): void {
  telemetry.sample("actors", () => actorSamples(figures.actors.census()));
  telemetry.sample("embedding", () => [
    { metric: "embeddingBacklog", value: figures.embedding.backlog() },
    { metric: "embeddingInFlight", value: figures.embedding.inFlight() },
  ]);
  telemetry.sample("webhooks", () => deliverySamples(figures.deliveries.snapshot()));
  const { operations } = figures;
  if (operations) telemetry.sample("webhook-operations", () => operationSamples(operations.snapshot()));
}

function* operationSamples(f: OperationFigures): Generator<Sample> {
  for (const { source, paused, held } of f.sources) {
    yield { metric: "webhookSourcesPaused", labels: { source }, value: paused };
    yield { metric: "webhookHeldEvents", labels: { source }, value: held };
  }
  for (const { source, status, count } of f.changes)
    yield { metric: "webhookSourceChanges", labels: { source, status }, value: count };
  for (const { source, outcome, count } of f.released)
    yield { metric: "webhookHeldReleased", labels: { source, outcome }, value: count };
  for (const { status, count } of f.replays)
    yield { metric: "deadLetterReplays", labels: { status }, value: count };
  for (const { record, count } of f.purged)
    yield { metric: "webhookRetentionPurged", labels: { record }, value: count };
  for (const { source, count } of f.discards)
    yield { metric: "deadLetterDiscards", labels: { source }, value: count };
}

function* actorSamples(
  census: Iterable<{ kind: string; active: number; depth: number; restarts: number }>,
): Generator<Sample> {
  for (const { kind, active, depth, restarts } of census) {
    const labels = { kind };
    yield { metric: "actorsActive", labels, value: active };
    yield { metric: "actorMailboxDepth", labels, value: depth };
    yield { metric: "actorRestarts", labels, value: restarts };
  }
}

/** Event outcomes as the counters name them, and as the metric's `outcome` label does. */
const OUTCOMES = [
  ["accepted", "accepted"],
  ["duplicates", "duplicate"],
  ["dead_lettered", "dead_lettered"],
  ["ignored", "ignored"],
  ["held", "held"],
] as const;

function* deliverySamples(counts: Iterable<DeliveryCounts>): Generator<Sample> {
  for (const c of counts) {
    for (const [field, outcome] of OUTCOMES)
      yield { metric: "webhookEvents", labels: { source: c.source, outcome }, value: c[field] };
    for (const [status, n] of Object.entries(c.rejected))
      yield { metric: "webhookRejections", labels: { source: c.source, status }, value: n };
  }
}
