/**
 * The telemetry part of the configuration, read from the environment object src/config/config.ts is
 * given (never process.env itself): the access log's level (`MEMORY_RUNTIME_LOG`) and tracing,
 * configured by the standard OpenTelemetry variables. Tracing is off, at no cost, unless an OTLP
 * endpoint is named (docs/observability.md, "Tracing").
 */

/** Access-log levels, most to least severe; `off` writes nothing. */
export const LOG_LEVELS = ["off", "error", "warn", "info", "debug"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type SamplerName =
  | "always_on"
  | "always_off"
  | "traceidratio"
  | "parentbased_always_on"
  | "parentbased_always_off"
  | "parentbased_traceidratio";

const SAMPLERS: readonly SamplerName[] = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
];

export interface TracingSettings {
  /** Where spans are POSTed (OTLP/HTTP, JSON): the traces endpoint itself. */
  url: string;
  /** Sent with every export (a collector's API key): secret, never logged. */
  headers: Record<string, string>;
  timeoutMs: number;
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES, with `service.name` and `service.version` set. */
  resource: Record<string, string>;
  sampler: SamplerName;
  /** The ratio of the `traceidratio` samplers, 0 to 1. */
  ratio: number;
  /** The batch span processor: how long spans wait, how many are kept, how many go at once. */
  scheduleDelayMs: number;
  maxQueueSize: number;
  maxExportBatchSize: number;
}

export interface TelemetrySettings {
  log: LogLevel;
  /** Undefined: tracing is off (no endpoint named, OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none). */
  tracing?: TracingSettings;
}

/** A telemetry variable with a value this runtime cannot use; src/config/config.ts makes it a ConfigError. */
export class TelemetrySettingError extends Error {}

type Env = Readonly<Record<string, string | undefined>>;

export const DEFAULT_SERVICE_NAME = "typed-memory-runtime";

export function telemetrySettingsOf(env: Env, version: string): TelemetrySettings {
  return { log: logLevelOf(env), tracing: tracingOf(env, version) };
}

function logLevelOf(env: Env): LogLevel {
  const raw = (env.MEMORY_RUNTIME_LOG ?? "").trim().toLowerCase();
  if (raw === "") return "info";
  if (!(LOG_LEVELS as readonly string[]).includes(raw))
    throw new TelemetrySettingError(
      `MEMORY_RUNTIME_LOG must be one of ${LOG_LEVELS.join(", ")}, got "${raw}"`,
    );
  return raw as LogLevel;
}

function tracingOf(env: Env, version: string): TracingSettings | undefined {
  if (value(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") return undefined;
  const exporter = value(env, "OTEL_TRACES_EXPORTER")?.toLowerCase();
  if (exporter === "none") return undefined;
  if (exporter !== undefined && exporter !== "otlp")
    throw new TelemetrySettingError(`OTEL_TRACES_EXPORTER must be otlp or none, got "${exporter}"`);
  const url = endpointOf(env);
  if (url === undefined) return undefined;
  const protocol =
    value(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") ?? value(env, "OTEL_EXPORTER_OTLP_PROTOCOL");
  if (protocol !== undefined && protocol !== "http/json")
    throw new TelemetrySettingError(
      `spans are exported as OTLP/HTTP JSON: set OTEL_EXPORTER_OTLP_PROTOCOL=http/json (or unset it), got "${protocol}"`,
    );
  const serviceName = value(env, "OTEL_SERVICE_NAME") ?? DEFAULT_SERVICE_NAME;
  const sampler = samplerOf(env);
  return {
    url,
    headers: {
      ...keyValues(env, "OTEL_EXPORTER_OTLP_HEADERS"),
      ...keyValues(env, "OTEL_EXPORTER_OTLP_TRACES_HEADERS"),
    },
    timeoutMs:
      positive(env, "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT") ??
      positive(env, "OTEL_EXPORTER_OTLP_TIMEOUT") ??
      10_000,
    serviceName,
    resource: {
      ...keyValues(env, "OTEL_RESOURCE_ATTRIBUTES"),
      "service.name": serviceName,
      "service.version": version,
    },
    sampler,
    ratio: ratioOf(env),
    scheduleDelayMs: positive(env, "OTEL_BSP_SCHEDULE_DELAY") ?? 5_000,
    maxQueueSize: positive(env, "OTEL_BSP_MAX_QUEUE_SIZE") ?? 2_048,
    maxExportBatchSize: positive(env, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE") ?? 512,
  };
}

/** The traces endpoint as given, or the base endpoint with the OTLP path for traces appended. */
function endpointOf(env: Env): string | undefined {
  const traces = value(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  const base = value(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
  const url = traces ?? (base === undefined ? undefined : `${base.replace(/\/+$/, "")}/v1/traces`);
  if (url === undefined) return undefined;
  const name = traces ? "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" : "OTEL_EXPORTER_OTLP_ENDPOINT";
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TelemetrySettingError(`${name} must be an http(s) URL`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new TelemetrySettingError(`${name} must be an http(s) URL`);
  return url;
}

function samplerOf(env: Env): SamplerName {
  const raw = value(env, "OTEL_TRACES_SAMPLER")?.toLowerCase() ?? "parentbased_always_on";
  if (!(SAMPLERS as readonly string[]).includes(raw))
    throw new TelemetrySettingError(
      `OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(", ")}, got "${raw}"`,
    );
  return raw as SamplerName;
}

function ratioOf(env: Env): number {
  const raw = value(env, "OTEL_TRACES_SAMPLER_ARG");
  if (raw === undefined) return 1;
  const ratio = Number(raw);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1)
    throw new TelemetrySettingError(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, got "${raw}"`);
  return ratio;
}

/** `k1=v1,k2=v2` (values percent-encoded, W3C Baggage style), as OTEL_*_HEADERS and attributes are written. */
function keyValues(env: Env, name: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (value(env, name) ?? "").split(",")) {
    const at = pair.indexOf("=");
    if (pair.trim() === "") continue;
    if (at <= 0) throw new TelemetrySettingError(`${name} must be a list of key=value pairs`);
    try {
      out[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      throw new TelemetrySettingError(`${name} holds a value that is not valid percent-encoding`);
    }
  }
  return out;
}

function positive(env: Env, name: string): number | undefined {
  const raw = value(env, name);
  if (raw === undefined) return undefined;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1)
    throw new TelemetrySettingError(`${name} must be a positive integer, got "${raw}"`);
  return Number(raw);
}

function value(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw === undefined || raw === "" ? undefined : raw;
}
