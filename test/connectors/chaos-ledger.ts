/**
 * The books of the connector chaos suites: every event a fake emitted against the entries stored
 * for it (counted per event, read back through the HTTP API), the faults injected by kind, and
 * the figures docs/testing.md quotes. A suite prints its figures and writes them to `test-artifacts/`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import type { Harness } from "../helpers/harness.ts";

export interface ChaosFigures {
  faults: Record<string, number>;
  emitted: number;
  stored: number;
  losses: number;
  doubles: number;
  /** Other things checked, by name (waits measured on the clock, token exchanges, replays). */
  checks: Record<string, number>;
}

/** How many entries each key (an event id, a message id) has in one category of a tenant. */
export async function countEntries(
  h: Harness,
  tenantId: string,
  plural: string,
  keyOf: (entry: { source: { event_id: string }; data?: Record<string, unknown> }) => string,
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const token = await h.mint(tenantId, ["tenant_admin"]);
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const query = `limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const { status, body } = await h.json("GET", `/memory/${plural}?${query}`, { token });
    if (status !== 200) throw new Error(`listing ${plural} answered ${status}`);
    for (const entry of body.items) counts.set(keyOf(entry), (counts.get(keyOf(entry)) ?? 0) + 1);
    cursor = body.next_cursor ?? undefined;
    if (!cursor) return counts;
  }
  throw new Error("more than 100 pages of entries");
}

/** Whether every emitted key has at least one entry (the stream has caught up). */
export function allStored(emitted: readonly string[], stored: Map<string, number>): boolean {
  return emitted.every((key) => (stored.get(key) ?? 0) > 0);
}

/** Emitted keys without an entry, keys with more than one, and entries for keys never emitted. */
export function tally(emitted: readonly string[], stored: Map<string, number>) {
  const expected = new Set(emitted);
  return {
    emitted: expected.size,
    stored: [...stored.values()].reduce((sum, n) => sum + n, 0),
    losses: [...expected].filter((key) => !stored.has(key)),
    doubles: [...stored].filter(([, n]) => n > 1).map(([key]) => key),
    strangers: [...stored.keys()].filter((key) => !expected.has(key)),
  };
}

/** Adds one tenant's books to a suite's figures. */
export function record(figures: ChaosFigures, books: ReturnType<typeof tally>): void {
  figures.emitted += books.emitted;
  figures.stored += books.stored;
  figures.losses += books.losses.length;
  figures.doubles += books.doubles.length;
}

export function emptyFigures(): ChaosFigures {
  return { faults: {}, emitted: 0, stored: 0, losses: 0, doubles: 0, checks: {} };
}

/** Adds `n` to a named check. */
export function count(figures: ChaosFigures, check: string, n = 1): void {
  figures.checks[check] = (figures.checks[check] ?? 0) + n;
}

/** Prints the figures on one line and writes them to `test-artifacts/<name>.json`. */
export function report(name: string, figures: ChaosFigures): void {
  const faults = Object.entries(figures.faults)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, n]) => `${kind}×${n}`)
    .join(" ");
  const checks = Object.entries(figures.checks)
    .map(([check, n]) => `${check} ${n}`)
    .join(", ");
  console.log(
    `${name}: faults ${faults}; events emitted ${figures.emitted}, stored ${figures.stored}, ` +
      `losses ${figures.losses}, doubles ${figures.doubles}; ${checks}`,
  );
  mkdirSync("test-artifacts", { recursive: true });
  writeFileSync(`test-artifacts/${name}.json`, `${JSON.stringify(figures, null, 2)}\n`);
}
