/**
 * The access log: one JSON line per request (docs/observability.md, "Access log"), written through
 * a sink: the server's is stdout (src/index.ts); an embedding program chooses its own or none. A line holds who asked what and how it went: never
 * a token, a body, a query string or a header value.
 *
 * Levels: `error` for a 5xx (a probe's 503, "not ready", is `warn`); `warn` for the refusals an operator watches (401, 403, 429); `info`
 * for the rest; `debug` for a successful probe or scrape (`/metrics`, `/livez`, `/readyz`,
 * `/healthz`), so probes every few seconds do not drown the log at the default level, `info`.
 */
import type { LogLevel } from "./telemetry-settings.ts";

/** Where log lines go: one call per line, without its newline. */
export type LogSink = (line: string) => void;

/**
 * Writes to stdout, the lines of one event-loop turn in one write: a write per line was a system
 * call per request (measured: ~10% of a GET's throughput). The lines of the turn a process dies
 * in can be lost; a stopping server's last lines are flushed by `flushStdout`.
 */
export const stdoutSink: LogSink = (line) => {
  pending.push(line);
  if (pending.length === 1) setImmediate(flushStdout);
};
const pending: string[] = [];

/** Writes the lines `stdoutSink` still holds. */
export function flushStdout(): void {
  if (pending.length === 0) return;
  process.stdout.write(`${pending.join("\n")}\n`);
  pending.length = 0;
}

const SEVERITY: Record<LogLevel, number> = { off: 0, error: 1, warn: 2, info: 3, debug: 4 };

/** Probes and scrapes: logged at `debug` when they succeed. */
const PROBES = new Set(["/metrics", "/livez", "/readyz", "/healthz"]);

export interface AccessRecord {
  /** Wall-clock ms (the runtime's clock). */
  at: number;
  requestId: string;
  method: string;
  /** The route template (`/memory/{category}/{id}`), or `unmatched`. */
  route: string;
  status: number;
  durationMs: number;
  tenantId: string | undefined;
  principal: { sub: string; kind: "operator" | "tenant"; roles: readonly string[] } | undefined;
}

export function levelOf(status: number, route: string): Exclude<LogLevel, "off"> {
  // A probe's 503 is its answer (not ready, or draining), not a failure of the service.
  if (status >= 500) return PROBES.has(route) && status === 503 ? "warn" : "error";
  if (status === 401 || status === 403 || status === 429) return "warn";
  if (status < 400 && PROBES.has(route)) return "debug";
  return "info";
}

export class AccessLog {
  private readonly threshold: number;

  constructor(
    level: LogLevel,
    private readonly sink: LogSink | undefined,
  ) {
    this.threshold = sink ? SEVERITY[level] : 0;
  }

  /** Whether any line is written at all (`off`, or no sink, skips even building the record). */
  get enabled(): boolean {
    return this.threshold > 0;
  }

  write(record: AccessRecord): void {
    const level = levelOf(record.status, record.route);
    if (SEVERITY[level] > this.threshold) return;
    // Named fields in a fixed order: nothing a record might grow on the way reaches the line.
    const line = JSON.stringify({
      time: new Date(record.at).toISOString(),
      level,
      msg: "request",
      request_id: record.requestId,
      method: record.method,
      route: record.route,
      status: record.status,
      duration_ms: Math.round(record.durationMs * 1000) / 1000,
      tenant_id: record.tenantId ?? null,
      principal: record.principal ?? null,
    });
    this.sink?.(line);
  }
}
