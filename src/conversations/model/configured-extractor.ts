/**
 * The runtime's model extractor from its settings (none under `deterministic`, the default), its
 * backlog and outcomes sampled at each metrics scrape.
 */
import type { Clock } from "../../runtime/clock.ts";
import type { Telemetry } from "../../telemetry/telemetry.ts";
import { ChatClient } from "./chat-client.ts";
import type { ExtractorSettings } from "./extractor-settings.ts";
import { ModelExtraction } from "./model-extraction.ts";

export function modelExtraction(
  settings: ExtractorSettings,
  deps: { clock: Clock; log?: (line: string) => void; telemetry?: Telemetry; fetch?: typeof fetch },
): ModelExtraction | undefined {
  if (settings.kind !== "http" || !settings.url || !settings.model) return undefined;
  const client = new ChatClient({
    url: settings.url,
    model: settings.model,
    apiKey: settings.apiKey,
    timeoutMs: settings.timeoutMs,
    clock: deps.clock,
    fetch: deps.fetch,
  });
  const extraction = new ModelExtraction(client, deps.clock, deps.log);
  deps.telemetry?.sample("extractor", () => [
    { metric: "extractorBacklog", value: extraction.backlog() },
    ...Object.entries(extraction.totals()).map(([outcome, value]) => ({
      metric: "extractorOutcomes" as const,
      labels: { outcome },
      value,
    })),
  ]);
  return extraction;
}
