/** The telemetry settings read from the environment: the standard OTEL_* variables and MEMORY_RUNTIME_LOG. */
import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config/config.ts";
import { createTelemetry } from "../../src/telemetry/telemetry.ts";
import { telemetrySettingsOf } from "../../src/telemetry/telemetry-settings.ts";
import { TEST_SECRET } from "../helpers/harness.ts";

const of = (env: Record<string, string>) => telemetrySettingsOf(env, "1.2.3");

describe("tracing settings", () => {
  test("off without an endpoint, with OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none; info logs by default", () => {
    expect(of({})).toEqual({ log: "info", tracing: undefined });
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" };
    expect(of({ ...endpoint, OTEL_SDK_DISABLED: "true" }).tracing).toBeUndefined();
    expect(of({ ...endpoint, OTEL_TRACES_EXPORTER: "none" }).tracing).toBeUndefined();
  });

  test("the traces endpoint: the signal's own as given, else the base one with /v1/traces", () => {
    expect(of({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" }).tracing?.url).toBe(
      "http://collector:4318/v1/traces",
    );
    expect(
      of({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://traces.example/ingest",
      }).tracing?.url,
    ).toBe("https://traces.example/ingest");
  });

  test("service name, resource attributes, headers, sampler and batch settings", () => {
    const tracing = of({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
      OTEL_SERVICE_NAME: "memory-eu",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=prod,team=core%20memory",
      OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=abc%3D%3D,x-other=1",
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-other=2",
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.25",
      OTEL_BSP_SCHEDULE_DELAY: "1000",
      OTEL_EXPORTER_OTLP_TIMEOUT: "3000",
    }).tracing!;
    expect(tracing.serviceName).toBe("memory-eu");
    expect(tracing.resource).toEqual({
      "deployment.environment": "prod",
      team: "core memory",
      "service.name": "memory-eu",
      "service.version": "1.2.3",
    });
    expect(tracing.headers).toEqual({ "x-api-key": "abc==", "x-other": "2" });
    expect(tracing).toMatchObject({
      sampler: "parentbased_traceidratio",
      ratio: 0.25,
      scheduleDelayMs: 1000,
    });
    expect(tracing.timeoutMs).toBe(3000);
  });

  test("values the runtime cannot use are refused, naming the variable (a ConfigError at start)", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" };
    const refused: Array<[Record<string, string>, RegExp]> = [
      [{ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }, /OTEL_EXPORTER_OTLP_ENDPOINT/],
      [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "ftp://x/v1/traces" }, /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT/],
      [{ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, /http\/json/],
      [{ ...endpoint, OTEL_TRACES_EXPORTER: "zipkin" }, /OTEL_TRACES_EXPORTER/],
      [{ ...endpoint, OTEL_TRACES_SAMPLER: "sometimes" }, /OTEL_TRACES_SAMPLER/],
      [{ ...endpoint, OTEL_TRACES_SAMPLER_ARG: "2" }, /OTEL_TRACES_SAMPLER_ARG/],
      [{ ...endpoint, OTEL_EXPORTER_OTLP_HEADERS: "novalue" }, /OTEL_EXPORTER_OTLP_HEADERS/],
      [{ ...endpoint, OTEL_BSP_SCHEDULE_DELAY: "-5" }, /OTEL_BSP_SCHEDULE_DELAY/],
    ];
    for (const [env, message] of refused) expect(() => of(env)).toThrow(message);
    const base = { MEMORY_RUNTIME_JWT_SECRET: TEST_SECRET, MEMORY_RUNTIME_EMBEDDER: "hash" };
    expect(() => loadConfig({ ...base, MEMORY_RUNTIME_LOG: "loud" })).toThrow(ConfigError);
    expect(loadConfig({ ...base, MEMORY_RUNTIME_LOG: "WARN" }).telemetry.log).toBe("warn");
  });
});

describe("Telemetry.time", () => {
  const telemetry = createTelemetry(of({ MEMORY_RUNTIME_LOG: "off" }));

  test("with tracing off, the operation's own promise comes back, and its outcome is observed", async () => {
    const work = Promise.resolve(42);
    expect(telemetry.time("vault.commit", [], () => work)).toBe(work);
    await expect(telemetry.time("search", ["recent"], () => Promise.reject(new Error("no")))).rejects.toThrow(
      "no",
    );
    await telemetry.time("search", ["recent"], async (timing) => timing.fail("refused"));
    const text = await telemetry.scrape();
    expect(text).toContain('memory_runtime_vault_commit_seconds_count{outcome="ok"} 1');
    expect(text).toContain('memory_runtime_search_seconds_count{mode="recent",outcome="error"} 2');
  });

  test("a synchronous throw stays synchronous (a full vault refuses before anything is queued)", () => {
    expect(() =>
      telemetry.time("vault.commit", [], () => {
        throw new Error("at the ceiling");
      }),
    ).toThrow("at the ceiling");
  });
});
