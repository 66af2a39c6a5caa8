import { afterAll, describe, expect, test } from "bun:test";
import { DEFAULT_TRACE_RATIO, startOtlpSink, traceRatioOf } from "../../bench/otlp-sink.ts";

/** The bench's local traces endpoint (bench/otlp-sink.ts): what BENCH_TRACES means, and the sink itself. */
describe("BENCH_TRACES", () => {
  test("unset or empty: traces sampled at the default ratio", () => {
    expect([traceRatioOf(undefined), traceRatioOf("")]).toEqual([DEFAULT_TRACE_RATIO, DEFAULT_TRACE_RATIO]);
  });
  test("a ratio from 0 to 1 is taken; off turns tracing off", () => {
    expect([traceRatioOf("0"), traceRatioOf("0.25"), traceRatioOf("1"), traceRatioOf("off")]).toEqual([
      0,
      0.25,
      1,
      undefined,
    ]);
  });
  test("anything else is refused with the allowed values", () => {
    for (const raw of ["2", "-0.1", "half", "NaN"])
      expect(() => traceRatioOf(raw)).toThrow(
        `BENCH_TRACES must be off or a ratio from 0 to 1, got "${raw}"`,
      );
  });
});

describe("the sink", () => {
  const sink = startOtlpSink(0.5);
  afterAll(() => sink.stop());

  test("its environment names the sampler, the ratio and a loopback traces endpoint", () => {
    expect(sink.env.OTEL_TRACES_SAMPLER).toBe("parentbased_traceidratio");
    expect(sink.env.OTEL_TRACES_SAMPLER_ARG).toBe("0.5");
    expect(sink.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/traces$/);
  });

  test("accepts exports and counts them; anything but POST is a 405", async () => {
    const url = sink.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT!;
    const posted = await fetch(url, { method: "POST", body: new Uint8Array(12) });
    expect(posted.status).toBe(200);
    expect((await fetch(url)).status).toBe(405);
    expect(sink.exports()).toEqual({ requests: 1, bytes: 12 });
  });
});
