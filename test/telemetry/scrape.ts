import { expect } from "bun:test";
import { getMetricsFromIterator, type PromMetric, type PromMetrics } from "prom2javascript";
import type { Harness } from "../helpers/harness.ts";

/** A sample of any type, as the parser gives it. */
type ParsedSample = {
  labels: Record<string, string>;
  value?: number;
  count?: number;
  buckets?: Record<string, number>;
};

/**
 * prom-client writes NaN as `Nan`, which Prometheus' own parser reads (Go's ParseFloat) but this one
 * does not. Only the event-loop lag gauges are NaN, and only before their first sample: those lines
 * are checked here and left out of the parse.
 */
const NAN_ALLOWED = /^nodejs_eventloop_lag_\w*seconds Nan$/;

/** A parsed scrape: metric families by name. */
export class Scrape {
  private constructor(
    readonly text: string,
    readonly families: PromMetrics,
  ) {}

  static async of(text: string): Promise<Scrape> {
    const lines = text.split("\n");
    const nan = lines.filter((line) => / Nan$/.test(line));
    for (const line of nan) expect(line).toMatch(NAN_ALLOWED);
    const rest = lines.filter((line) => !/ Nan$/.test(line));
    return new Scrape(text, await getMetricsFromIterator(rest[Symbol.iterator]()));
  }

  family(name: string): PromMetric {
    const family = this.families[name];
    if (!family) throw new Error(`no metric ${name} in the scrape`);
    return family;
  }

  /** The samples of `name` whose labels include `labels`. */
  samples(name: string, labels: Record<string, string> = {}): ParsedSample[] {
    return (this.family(name).data as ParsedSample[]).filter((m) =>
      Object.entries(labels).every(([k, v]) => m.labels[k] === v),
    );
  }

  /** The matching samples' values added up (counters, gauges), or their counts (histograms); 0 when none. */
  value(name: string, labels: Record<string, string> = {}): number {
    return this.samples(name, labels).reduce((sum, m) => sum + (m.value ?? m.count ?? 0), 0);
  }

  /** Every label value of every series. */
  labelValues(): string[] {
    return Object.values(this.families).flatMap((f) =>
      (f.data as ParsedSample[]).flatMap((m) => Object.values(m.labels)),
    );
  }
}

/**
 * `GET /metrics` with the operator's token, checked for status and media type, parsed. Requests are
 * recorded once their response is out (an `afterResponse` hook, on the event loop's next turn): the
 * scrape waits for that turn, so the requests before it are in it.
 */
export async function scrape(h: Harness): Promise<Scrape> {
  await nextTurn();
  const res = await h.call("GET", "/metrics", { token: h.adminToken });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
  return Scrape.of(await res.text());
}

/** Resolves after the callbacks already queued for the event loop's check phase (not a timer). */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
