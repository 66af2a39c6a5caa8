/**
 * The Telemetry port: the one way code outside this folder records metrics, opens spans and writes
 * the access log. compose.ts builds one per runtime (or takes the caller's: tests pass their own)
 * and hands it to what it instruments; nothing is patched or registered globally.
 *
 * `time` is the instrumentation helper: it observes the operation's latency histogram (with an
 * `outcome` label) and, when tracing is on, runs the operation in a child span of the active one.
 * With tracing off it creates no span object and returns the operation's own promise unchanged.
 * Figures that live elsewhere (mailbox depths, backlogs, counters kept for the dashboard) are read
 * at scrape time through `sample`, so they cost nothing between scrapes.
 */
import type { Counter, Gauge, Registry } from "prom-client";
import { AccessLog, type LogSink } from "./access-log.ts";
import { type Metrics, metricsRegistry } from "./metrics.ts";
import type { TelemetrySettings } from "./telemetry-settings.ts";
import { type Span, SpanKind, SpanStatusCode, startTracing, type Tracing } from "./tracing.ts";

/** What `time` measures: each has its histogram and its span name. */
export interface TimedLabels {
  /** [actor kind, message type] */
  "actor.message": readonly [string, string];
  "vault.commit": readonly [];
  /** [mode: hybrid | vector | lexical | recent] */
  search: readonly [string];
  /** [embedder kind] */
  embedding: readonly [string];
  "outbound.delivery": readonly [];
  /** [connector: crm-stream | mail-watch] */
  "connector.call": readonly [string];
  /** A request forwarded to the node owning its tenant (cluster mode). */
  "cluster.forward": readonly [];
}
export type Timed = keyof TimedLabels;

/** Handed to a timed operation: marks it failed (without throwing) and propagates its span. */
export interface Timing {
  /** The outcome is `error` and the span's status says why (a short, log-safe reason). */
  fail(reason: string): void;
  /** Writes the operation's `traceparent` into outgoing request headers (nothing with tracing off). */
  inject(headers: Record<string, string>): void;
}

/** Metrics whose values are read at scrape time (see `sample`). */
export type SampledMetric =
  | "actorMailboxDepth"
  | "actorsActive"
  | "actorRestarts"
  | "embeddingBacklog"
  | "embeddingInFlight"
  | "extractorBacklog"
  | "extractorOutcomes"
  | "webhookEvents"
  | "webhookRejections"
  | "webhookSourcesPaused"
  | "webhookHeldEvents"
  | "webhookSourceChanges"
  | "webhookHeldReleased"
  | "deadLetterReplays"
  | "deadLetterDiscards"
  | "webhookRetentionPurged"
  | "outboundQueued"
  | "outboundRetrying";

/** One value read at scrape time: samples of one metric from every source are added up. */
export interface Sample {
  metric: SampledMetric;
  labels?: Record<string, string>;
  value: number;
}

export interface Telemetry {
  readonly metrics: Metrics;
  /** Undefined when tracing is off. */
  readonly tracing: Tracing | undefined;
  readonly accessLog: AccessLog;
  time<K extends Timed, T>(what: K, labels: TimedLabels[K], run: (timing: Timing) => Promise<T>): Promise<T>;
  /**
   * Registers (or replaces, under the same key) a source read at each scrape; the function
   * returned removes it. Sources must be quick and synchronous.
   */
  sample(key: string, read: () => Iterable<Sample>): () => void;
  /**
   * Runs `fn` under the trace a request's `traceparent` names (a request that does not reach this
   * node's app, such as one cluster mode forwards); `fn` itself with tracing off.
   */
  underRemoteParent<T>(headers: Headers, fn: () => T): T;
  /** A connector of a tenant is in `state` now (`stopped` forgets it); exposed counted by state. */
  connectorState(connector: string, tenantId: string, state: string): void;
  /** The text exposition of every metric (`GET /metrics`). */
  scrape(): Promise<string>;
  readonly contentType: string;
  /** Exports the spans ended so far (tests; nothing with tracing off). */
  flush(): Promise<void>;
  /** Exports what is left and stops tracing (the runtime's stop). */
  shutdown(): Promise<void>;
}

export interface TelemetryOptions {
  /**
   * Where access-log lines go: the server passes stdout (src/index.ts); without a sink none is
   * written, so a program embedding the runtime keeps its stdout to itself unless it asks.
   */
  sink?: LogSink;
  /** Operational messages (an exporter failing); never a secret. */
  log?: (line: string) => void;
}

const OUTCOME_OK = "ok";
const OUTCOME_ERROR = "error";

/** A Timing for an operation without a span: only its outcome is kept. */
class Outcome implements Timing {
  failed = false;
  fail(): void {
    this.failed = true;
  }
  inject(): void {}
}

/** A Timing with its span. */
class SpanOutcome implements Timing {
  failed = false;
  constructor(
    readonly span: Span,
    private readonly tracing: Tracing,
  ) {}
  fail(reason: string): void {
    this.failed = true;
    this.span.setStatus({ code: SpanStatusCode.ERROR, message: reason });
  }
  inject(headers: Record<string, string>): void {
    this.tracing.inject(headers, this.span);
  }
}

/** A runtime's telemetry from its settings. */
export function createTelemetry(settings: TelemetrySettings, options: TelemetryOptions = {}): Telemetry {
  const { register, metrics } = metricsRegistry();
  const log = options.log ?? console.error;
  let failing = false;
  const tracing = settings.tracing
    ? startTracing(settings.tracing, (error) => {
        metrics.tracingExportFailures.inc();
        // One line per streak of failures, not one per batch.
        if (!failing) log(`[tracing] spans could not be exported: ${error?.message ?? "unknown error"}`);
        failing = true;
      })
    : undefined;
  return new RuntimeTelemetry(register, metrics, tracing, new AccessLog(settings.log, options.sink));
}

class RuntimeTelemetry implements Telemetry {
  private readonly sources = new Map<string, () => Iterable<Sample>>();
  /** connector → tenant → state; exposed only as counts per (connector, state). */
  private readonly connectorStates = new Map<string, Map<string, string>>();

  constructor(
    private readonly register: Registry,
    readonly metrics: Metrics,
    readonly tracing: Tracing | undefined,
    readonly accessLog: AccessLog,
  ) {}

  get contentType(): string {
    return this.register.contentType;
  }

  time<K extends Timed, T>(what: K, labels: TimedLabels[K], run: (timing: Timing) => Promise<T>): Promise<T> {
    const started = performance.now();
    // An actor message, a commit or a search is traced only as part of something traced (a
    // request): background messages (index flushes, stored vectors) would each start a trace.
    const tracing = this.tracing && (ROOTS.has(what) || this.tracing.inSpan()) ? this.tracing : undefined;
    const timing = tracing ? new SpanOutcome(startSpanOf(tracing, what, labels), tracing) : new Outcome();
    let result: Promise<T>;
    try {
      result = timing instanceof SpanOutcome ? tracing!.within(timing.span, () => run(timing)) : run(timing);
    } catch (error) {
      // A synchronous throw stays synchronous: callers may rely on it (a full vault refuses at once).
      this.settle(what, labels, started, timing, error);
      throw error;
    }
    result.then(
      () => this.settle(what, labels, started, timing, undefined),
      (error) => this.settle(what, labels, started, timing, error ?? new Error("rejected")),
    );
    return result;
  }

  private settle<K extends Timed>(
    what: K,
    labels: TimedLabels[K],
    started: number,
    timing: Outcome | SpanOutcome,
    error: unknown,
  ): void {
    const outcome = error === undefined && !timing.failed ? OUTCOME_OK : OUTCOME_ERROR;
    observe(this.metrics, what, labels, outcome, (performance.now() - started) / 1000);
    if (!(timing instanceof SpanOutcome)) return;
    if (error !== undefined) timing.span.setStatus({ code: SpanStatusCode.ERROR, message: errorName(error) });
    timing.span.end();
  }

  sample(key: string, read: () => Iterable<Sample>): () => void {
    this.sources.set(key, read);
    return () => {
      if (this.sources.get(key) === read) this.sources.delete(key);
    };
  }

  underRemoteParent<T>(headers: Headers, fn: () => T): T {
    return this.tracing ? this.tracing.withContext(this.tracing.extract(headers), fn) : fn();
  }

  connectorState(connector: string, tenantId: string, state: string): void {
    let tenants = this.connectorStates.get(connector);
    if (!tenants) {
      tenants = new Map();
      this.connectorStates.set(connector, tenants);
    }
    if (state === "stopped") tenants.delete(tenantId);
    else tenants.set(tenantId, state);
  }

  async scrape(): Promise<string> {
    this.readSamples();
    return this.register.metrics();
  }

  flush(): Promise<void> {
    return this.tracing?.flush() ?? Promise.resolve();
  }

  shutdown(): Promise<void> {
    return this.tracing?.shutdown() ?? Promise.resolve();
  }

  /** Every sampled metric set afresh from its sources, and the connectors counted by state. */
  private readSamples(): void {
    const sampled = new Set<Counter | Gauge>();
    const reset = (metric: Counter | Gauge) => {
      if (sampled.has(metric)) return;
      metric.reset();
      sampled.add(metric);
    };
    for (const name of SAMPLED) reset(this.metrics[name]);
    for (const read of this.sources.values())
      for (const { metric, labels, value } of read())
        (this.metrics[metric] as Gauge).inc(labels ?? {}, value);
    const connectors = this.metrics.connectors;
    connectors.reset();
    for (const [connector, tenants] of this.connectorStates)
      for (const state of tenants.values()) connectors.inc({ connector, state });
  }
}

/** Operations traced even without a parent span: they start work of their own. */
const ROOTS: ReadonlySet<Timed> = new Set<Timed>([
  "embedding",
  "outbound.delivery",
  "connector.call",
  "cluster.forward",
]);

const SAMPLED: readonly SampledMetric[] = [
  "actorMailboxDepth",
  "actorsActive",
  "actorRestarts",
  "embeddingBacklog",
  "embeddingInFlight",
  "extractorBacklog",
  "extractorOutcomes",
  "webhookEvents",
  "webhookRejections",
  "webhookSourcesPaused",
  "webhookHeldEvents",
  "webhookSourceChanges",
  "webhookHeldReleased",
  "deadLetterReplays",
  "deadLetterDiscards",
  "webhookRetentionPurged",
  "outboundQueued",
  "outboundRetrying",
];

/** The timed operation's histogram and the labels of one observation of it. */
function observe<K extends Timed>(
  metrics: Metrics,
  what: K,
  labels: TimedLabels[K],
  outcome: string,
  seconds: number,
): void {
  const l = labels as readonly string[];
  if (what === "actor.message")
    metrics.actorMessage.observe({ kind: l[0]!, message: l[1]!, outcome }, seconds);
  else if (what === "vault.commit") metrics.vaultCommit.observe({ outcome }, seconds);
  else if (what === "search") metrics.search.observe({ mode: l[0]!, outcome }, seconds);
  else if (what === "embedding") metrics.embedding.observe({ embedder: l[0]!, outcome }, seconds);
  else if (what === "outbound.delivery") metrics.outboundDeliveries.observe({ outcome }, seconds);
  else if (what === "cluster.forward") metrics.clusterForwards.observe({ outcome }, seconds);
  else metrics.connectorCalls.observe({ connector: l[0]!, outcome }, seconds);
}

/** The child span of a timed operation: named by what it is, never by a tenant or an id. */
function startSpanOf<K extends Timed>(tracing: Tracing, what: K, labels: TimedLabels[K]): Span {
  const l = labels as readonly string[];
  switch (what) {
    case "actor.message":
      return tracing.startSpan(`${l[0]} ${l[1]}`, {
        attributes: { "actor.kind": l[0], "actor.message": l[1] },
      });
    case "search":
      return tracing.startSpan("memory.search", { attributes: { "search.mode": l[0] } });
    case "embedding":
      return tracing.startSpan("embedding", { attributes: { "embedding.embedder": l[0] } });
    case "outbound.delivery":
      return tracing.startSpan("outbound.delivery", { kind: SpanKind.CLIENT });
    case "cluster.forward":
      return tracing.startSpan("cluster.forward", { kind: SpanKind.CLIENT });
    case "connector.call":
      return tracing.startSpan(`connector ${l[0]}`, {
        kind: SpanKind.CLIENT,
        attributes: { connector: l[0] },
      });
    default:
      return tracing.startSpan(what);
  }
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "error";
}
