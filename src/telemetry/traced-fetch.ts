import type { Telemetry } from "./telemetry.ts";

/**
 * A connector's fetch, each call timed (`memory_runtime_connector_call_seconds`) and, with tracing
 * on, in a `connector <name>` client span (an answer other than 2xx is its failure). No trace
 * context goes to the platform: its API has no use for this runtime's trace ids. Streams, which
 * stay open, are not given this fetch.
 */
export function tracedFetch(
  base: typeof fetch,
  telemetry: Telemetry | undefined,
  connector: string,
): typeof fetch {
  if (!telemetry) return base;
  const traced = (input: string | URL | Request, init?: RequestInit) =>
    telemetry.time("connector.call", [connector], async (timing) => {
      const res = await base(input, init);
      if (!res.ok) timing.fail(`HTTP ${res.status}`);
      return res;
    });
  return traced as typeof fetch;
}
