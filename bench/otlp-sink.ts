/**
 * A local OTLP/HTTP traces endpoint for the bench: it accepts every export (200, counted) so the
 * services the bench starts run with tracing on as production does (issue 35, item 3: the request
 * figures with metrics, sampled traces and the access log all on), without reaching outside.
 *
 * `startOtlpSink` serves it in the bench's process; `bun bench/otlp-sink.ts` serves it alone (for a
 * tree whose bench predates it: start this, then export the variables it prints).
 */
export interface OtlpSink {
  /** The environment that points a service at this sink, traces sampled at `ratio`. */
  env: Record<string, string>;
  exports(): { requests: number; bytes: number };
  stop(): void;
}

/** The share of root traces sampled when BENCH_TRACES gives no ratio: a production-like 10%. */
export const DEFAULT_TRACE_RATIO = 0.1;

export function startOtlpSink(ratio = DEFAULT_TRACE_RATIO, port = 0): OtlpSink {
  let requests = 0;
  let bytes = 0;
  const server = Bun.serve({
    port,
    hostname: "127.0.0.1",
    async fetch(req) {
      if (req.method !== "POST") return new Response("POST OTLP traces here", { status: 405 });
      bytes += (await req.arrayBuffer()).byteLength;
      requests++;
      return new Response("{}", { headers: { "content-type": "application/json" } });
    },
  });
  return {
    env: {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${server.port}/v1/traces`,
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: String(ratio),
    },
    exports: () => ({ requests, bytes }),
    stop: () => server.stop(true),
  };
}

/**
 * BENCH_TRACES: unset or a ratio (0–1) traces the services the bench starts at that ratio (default
 * DEFAULT_TRACE_RATIO); `off` leaves tracing off, as the figures before issue 35 were taken.
 */
export function traceRatioOf(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === "") return DEFAULT_TRACE_RATIO;
  if (raw === "off") return undefined;
  const ratio = Number(raw);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1)
    throw new Error(`BENCH_TRACES must be off or a ratio from 0 to 1, got "${raw}"`);
  return ratio;
}

if (import.meta.main) {
  const sink = startOtlpSink(
    traceRatioOf(process.env.BENCH_TRACES) ?? DEFAULT_TRACE_RATIO,
    Number(process.env.PORT ?? 4318),
  );
  for (const [key, value] of Object.entries(sink.env)) console.log(`export ${key}=${value}`);
}
