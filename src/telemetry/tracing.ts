/**
 * OpenTelemetry tracing, built only when an OTLP endpoint is configured (telemetry-settings.ts):
 * a tracer provider with a batch span processor and the OTLP/HTTP (JSON) exporter, the W3C trace
 * context propagator, and an AsyncLocalStorage context manager (Bun carries its store across
 * awaits, timers and the actors' promise-chained mailboxes: test/telemetry/tracing.test.ts).
 *
 * Nothing is registered globally (no `trace.setGlobalTracerProvider`, no global context manager):
 * each runtime holds its own, so two runtimes in one process (tests, an embedding program) keep
 * their spans apart, and code outside this folder reaches tracing only through the Telemetry port.
 */
import {
  type Attributes,
  type Context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  type Span,
  type SpanKind,
  trace,
} from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { type ExportResult, ExportResultCode, W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type ReadableSpan,
  type Sampler,
  type SpanExporter,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import type { SamplerName, TracingSettings } from "./telemetry-settings.ts";

export { type Span, SpanKind, SpanStatusCode } from "@opentelemetry/api";

export interface Tracing {
  /** A span parented on `parent` (default: the active context); the caller ends it. */
  startSpan(name: string, options?: { kind?: SpanKind; attributes?: Attributes; parent?: Context }): Span;
  /** Runs `fn` with `span` as the active span, so the spans it starts are its children. */
  within<T>(span: Span, fn: () => T): T;
  /** Runs `fn` in `context` (a remote parent `extract` found). */
  withContext<T>(context: Context, fn: () => T): T;
  /** The active context (the request's or the actor message's span). */
  active(): Context;
  /** Whether a span is active here (a request's, or any operation's it caused). */
  inSpan(): boolean;
  /** Writes `traceparent` (and `tracestate`) of `span`, or of the active context, into `headers`. */
  inject(headers: Record<string, string>, span?: Span): void;
  /** The remote parent a request's `traceparent` names, or the root context. */
  extract(headers: Headers): Context;
  /** Exports every ended span now (tests, a stop). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** Tracing per `settings`; `onExportFailure` hears each batch the exporter could not deliver. */
export function startTracing(
  settings: TracingSettings,
  onExportFailure: (error: Error | undefined) => void,
): Tracing {
  const exporter = watched(
    new OTLPTraceExporter({
      url: settings.url,
      headers: settings.headers,
      timeoutMillis: settings.timeoutMs,
    }),
    onExportFailure,
  );
  const provider = new TracerProvider({
    resource: resourceFromAttributes(settings.resource),
    sampler: samplerOf(settings.sampler, settings.ratio),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter,
        scheduledDelayMillis: settings.scheduleDelayMs,
        maxQueueSize: settings.maxQueueSize,
        maxExportBatchSize: Math.min(settings.maxExportBatchSize, settings.maxQueueSize),
        exportTimeoutMillis: settings.timeoutMs,
      }),
    ],
  });
  const tracer = provider.getTracer(settings.serviceName, settings.resource["service.version"]);
  const contexts = new AsyncLocalStorageContextManager().enable();
  const propagator = new W3CTraceContextPropagator();
  return {
    startSpan: (name, options = {}) =>
      tracer.startSpan(
        name,
        { kind: options.kind, attributes: options.attributes },
        options.parent ?? contexts.active(),
      ),
    within: (span, fn) => contexts.with(trace.setSpan(contexts.active(), span), fn),
    withContext: (context, fn) => contexts.with(context, fn),
    active: () => contexts.active(),
    inSpan: () => trace.getSpan(contexts.active()) !== undefined,
    inject: (headers, span) => {
      const context = span ? trace.setSpan(contexts.active(), span) : contexts.active();
      propagator.inject(context, headers, defaultTextMapSetter);
    },
    extract: (headers) => propagator.extract(ROOT_CONTEXT, headersCarrier(headers), headersGetter),
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      await provider.shutdown();
      contexts.disable();
    },
  };
}

function samplerOf(name: SamplerName, ratio: number): Sampler {
  const ratioSampler = new TraceIdRatioBasedSampler(ratio);
  switch (name) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return ratioSampler;
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: ratioSampler });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** The exporter, with each failed batch reported (the OTel diagnostics logger is not set up). */
function watched(exporter: SpanExporter, onFailure: (error: Error | undefined) => void): SpanExporter {
  return {
    export: (spans: ReadableSpan[], done: (result: ExportResult) => void) =>
      exporter.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) onFailure(result.error);
        done(result);
      }),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

/** Fetch `Headers` as a text-map carrier: only `traceparent` and `tracestate` are read. */
function headersCarrier(headers: Headers): Record<string, string> {
  const carrier: Record<string, string> = {};
  const parent = headers.get("traceparent");
  if (parent !== null) carrier.traceparent = parent;
  const state = headers.get("tracestate");
  if (state !== null) carrier.tracestate = state;
  return carrier;
}

const headersGetter = defaultTextMapGetter;
