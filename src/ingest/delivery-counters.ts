import type { IngestSummary } from "./ingest-item.ts";

/** What became of the events one source delivered, since the process started. */
export interface SourceCounts {
  accepted: number;
  duplicates: number;
  dead_lettered: number;
  ignored: number;
  /** Events held while their source was paused (applied later, when it is resumed). */
  held: number;
  /** Deliveries refused before any event was read (bad signature 401, unknown tenant 404, 413…), by status. */
  rejected: Record<string, number>;
}

export type DeliveryCounts = { source: string } & SourceCounts;

/**
 * In-memory counters per source for the operator dashboard. The ingest pipeline counts every
 * delivery's summary (webhooks, the CRM stream, the bridge, replays excluded); the webhook route
 * counts refusals. They start at zero with the process, like any metrics counter: durable history
 * lives in the entries and dead letters themselves.
 */
export class DeliveryCounters {
  private readonly counts = new Map<string, SourceCounts>();

  delivered(source: string, summary: IngestSummary & { held?: readonly string[] }): void {
    const c = this.of(source);
    c.accepted += summary.accepted;
    c.duplicates += summary.duplicates;
    c.dead_lettered += summary.dead_lettered.length;
    c.ignored += summary.ignored;
    c.held += summary.held?.length ?? 0;
  }

  /** A held event a resume applied: counted as its outcome then. */
  released(source: string, outcome: string): void {
    const c = this.of(source);
    if (outcome === "accepted") c.accepted++;
    else if (outcome === "duplicate") c.duplicates++;
    else if (outcome === "dead_lettered") c.dead_lettered++;
    else if (outcome === "ignored") c.ignored++;
  }

  rejected(source: string, status: number): void {
    const rejected = this.of(source).rejected;
    rejected[status] = (rejected[status] ?? 0) + 1;
  }

  /** A copy, sources in name order. */
  snapshot(): DeliveryCounts[] {
    return [...this.counts]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([source, c]) => ({ source, ...c, rejected: { ...c.rejected } }));
  }

  private of(source: string): SourceCounts {
    let c = this.counts.get(source);
    if (!c) {
      c = { accepted: 0, duplicates: 0, dead_lettered: 0, ignored: 0, held: 0, rejected: {} };
      this.counts.set(source, c);
    }
    return c;
  }
}
