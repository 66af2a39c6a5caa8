/**
 * Every metric this runtime exposes at `GET /metrics` (docs/observability.md lists them), in one
 * prom-client registry per runtime. Label values are bounded: route templates, actor kinds and
 * message types, source and connector names, outcomes. A tenant id or a raw path is never a label
 * value: per-tenant figures stay on the JSON admin routes.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** Seconds: from a tenth of a millisecond (a cached read) to ten seconds (a slow upstream). */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Entries in one committed write set: a single write to a large batch or import chunk. */
const SIZE_BUCKETS = [0, 1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 5000];

export const PREFIX = "memory_runtime_";

export function createMetrics(register: Registry) {
  const registers = [register];
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Counter<L>({ name: PREFIX + name, help, labelNames, registers });
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Gauge<L>({ name: PREFIX + name, help, labelNames, registers });
  const histogram = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    buckets = LATENCY_BUCKETS,
  ) => new Histogram<L>({ name: PREFIX + name, help, labelNames, buckets, registers });
  return {
    httpRequests: counter(
      "http_requests_total",
      "HTTP requests answered, by method, route template and status",
      ["method", "route", "status"],
    ),
    httpDuration: histogram(
      "http_request_duration_seconds",
      "Time from a request's arrival to its response being ready, by method, route template and status",
      ["method", "route", "status"],
    ),
    actorMessage: histogram(
      "actor_message_seconds",
      "Time an actor spent on one message in its mailbox, by actor kind, message type and outcome (error: the handler threw, domain refusals included)",
      ["kind", "message", "outcome"],
    ),
    actorMailboxDepth: gauge(
      "actor_mailbox_depth",
      "Messages waiting in or being processed by the mailboxes of started actors, by actor kind",
      ["kind"],
    ),
    actorsActive: gauge("actors_active", "Started (not passivated) actors, by kind", ["kind"]),
    actorRestarts: counter("actor_restarts_total", "Actors restarted after a crash, by kind", ["kind"]),
    vaultCommit: histogram(
      "vault_commit_seconds",
      "Time from a write set being queued to its LMDB commit settling, by outcome",
      ["outcome"],
    ),
    vaultWriteSetEntries: histogram(
      "vault_write_set_entries",
      "Entries (created or updated) in each write set queued for commit",
      [],
      SIZE_BUCKETS,
    ),
    search: histogram(
      "search_seconds",
      "Memory searches (HTTP and MCP), query embedding included, by mode and outcome",
      ["mode", "outcome"],
    ),
    embedding: histogram(
      "embedding_seconds",
      "Embedder calls (query texts, entry texts, background batches), by embedder kind and outcome",
      ["embedder", "outcome"],
    ),
    embeddedTexts: counter("embedding_texts_total", "Texts embedded, by embedder kind", ["embedder"]),
    embeddingBacklog: gauge(
      "embedding_backlog",
      "Entries of open tenants waiting for their vector from the background embedder",
      [],
    ),
    embeddingInFlight: gauge(
      "embedding_batches_in_flight",
      "Background embedding batches being embedded now",
      [],
    ),
    extractorBacklog: gauge(
      "extractor_backlog",
      "Conversation calls of open tenants waiting for the model extractor (MEMORY_RUNTIME_EXTRACTOR=http)",
      [],
    ),
    extractorOutcomes: counter(
      "extractor_outcomes_total",
      "The model extractor's work since start: entries `extracted`, entries `dropped` (invalid for their category), calls `failed` (an answer not JSON)",
      ["outcome"],
    ),
    webhookEvents: counter(
      "webhook_events_total",
      "Events delivered by a source (webhooks, the CRM stream, the bridge; replays excluded), by source and outcome",
      ["source", "outcome"],
    ),
    webhookRejections: counter(
      "webhook_rejections_total",
      "Webhook deliveries refused before any event was read, by source and HTTP status",
      ["source", "status"],
    ),
    webhookSourcesPaused: gauge(
      "webhook_sources_paused",
      "Tenants served here with the source paused, as last learned (a pause or resume, a delivery held, the hourly upkeep), by source",
      ["source"],
    ),
    webhookHeldEvents: gauge(
      "webhook_held_events",
      "Events held by paused sources of tenants served here, waiting for a resume, as last learned, by source",
      ["source"],
    ),
    webhookSourceChanges: counter(
      "webhook_source_changes_total",
      "Pauses and resumes asked of this node, by source and status (paused, resumed)",
      ["source", "status"],
    ),
    webhookHeldReleased: counter(
      "webhook_held_released_total",
      "Held events a resume applied, by source and outcome (accepted, duplicate, dead_lettered, ignored)",
      ["source", "outcome"],
    ),
    deadLetterReplays: counter(
      "dead_letter_replays_total",
      "Dead letters replayed (one by one or in bulk), by the status they ended in (replayed, dead)",
      ["status"],
    ),
    deadLetterDiscards: counter(
      "dead_letter_discards_total",
      "Dead letters discarded (one by one or in bulk), never to be replayed, by source",
      ["source"],
    ),
    webhookRetentionPurged: counter(
      "webhook_retention_purged_total",
      "Records retention removed, by record (delivery_log, dead_letter)",
      ["record"],
    ),
    connectors: gauge("connectors", "Connectors running on this node, by connector and state", [
      "connector",
      "state",
    ]),
    connectorCalls: histogram(
      "connector_call_seconds",
      "HTTP calls connectors make to their platforms (streams excluded), by connector and outcome",
      ["connector", "outcome"],
    ),
    outboundDeliveries: histogram(
      "outbound_delivery_seconds",
      "Outbound event deliveries to subscribers, by outcome (error: not a 2xx, or no answer)",
      ["outcome"],
    ),
    outboundQueued: gauge(
      "outbound_queued_events",
      "Outbound events read from change logs and not yet delivered, over every subscription served here",
      [],
    ),
    outboundRetrying: gauge(
      "outbound_subscriptions_retrying",
      "Subscriptions waiting for a retry after a failed delivery",
      [],
    ),
    clusterForwards: histogram(
      "cluster_forward_seconds",
      "Requests forwarded to the node owning their tenant (cluster mode), by outcome (error: no answer or a 5xx)",
      ["outcome"],
    ),
    reranks: counter(
      "rerank_total",
      "Searches through the re-ranking stage, by re-ranker and outcome (ok, or why it fell back to the fused order)",
      ["reranker", "outcome"],
    ),
    rateLimited: counter(
      "rate_limited_total",
      "Requests refused 429 by a tenant's rate limit, by route class",
      ["class"],
    ),
    tracingExportFailures: counter(
      "tracing_export_failures_total",
      "Span batches the OTLP exporter could not deliver",
      [],
    ),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** A registry with every metric above and prom-client's process and runtime metrics. */
export function metricsRegistry(): { register: Registry; metrics: Metrics } {
  const register = new Registry();
  collectDefaultMetrics({ register });
  return { register, metrics: createMetrics(register) };
}
