import type { HeldDelivery, SourceState } from "../../../src/models/webhook-operations.ts";
import type { Staging } from "../../../src/vault/staging.ts";
import type { TableViews } from "../../../src/vault/tables.ts";
import { heldIdKey, heldStageKey } from "../../../src/vault/webhook-records.ts";

const LAST_SEQ = Number.MAX_SAFE_INTEGER;

/**
 * Reads of the events held while their source is paused and of the sources' pause states, with
 * the writes still committing overlaid (a release is staged as null). Writes go through write
 * sets (src/vault/webhook-records.ts); this class hands out arrival sequence numbers.
 */
export class HeldEvents {
  /** The next arrival sequence per source, read from the table on first use. */
  private readonly nextSeq = new Map<string, number>();

  constructor(
    private readonly tables: TableViews<"ingest">,
    private readonly staging: Staging,
  ) {}

  /** The source's pause state; none for a source never paused. */
  state(source: string): SourceState | undefined {
    const staged = this.staging.key("s", source) as SourceState | undefined;
    return staged ?? this.tables.sources.get(source);
  }

  /** Whether the source's events are held now (paused, or paused with a resume releasing them). */
  holding(source: string): boolean {
    return this.state(source)?.status === "paused";
  }

  /** Every source with a pause state. */
  states(): Map<string, SourceState> {
    const out = new Map<string, SourceState>();
    for (const { key, value } of this.tables.sources.getRange()) out.set(key, value);
    for (const [key, value] of this.staging.keys("s")) out.set(key, value as SourceState);
    return out;
  }

  /** Whether this event of the source is held (a redelivery of it is then a duplicate). */
  isHeld(source: string, eventId: string): boolean {
    const key = heldIdKey(source, eventId);
    const staged = this.staging.key("h", key);
    if (staged !== undefined) return staged !== null;
    return this.tables.heldIds.doesExist(key);
  }

  /** The next arrival sequence of the source. */
  takeSeq(source: string): number {
    let next = this.nextSeq.get(source);
    if (next === undefined) {
      next = 1;
      for (const [, seq] of this.tables.held.getKeys({
        start: [source, LAST_SEQ],
        end: [source, 0],
        reverse: true,
        limit: 1,
      }))
        next = seq + 1;
    }
    this.nextSeq.set(source, next + 1);
    return next;
  }

  /** The source's oldest held event still held, if any. */
  oldest(source: string): HeldDelivery | undefined {
    let best: HeldDelivery | undefined;
    for (const { key, value } of this.tables.held.getRange({ start: [source, 0], end: [source, LAST_SEQ] })) {
      if (this.staging.key("q", heldStageKey(source, key[1])) === null) continue;
      best = value;
      break;
    }
    for (const [, value] of this.staging.keys("q")) {
      const held = value as HeldDelivery | null;
      if (held && held.source === source && (!best || held.seq < best.seq)) best = held;
    }
    return best;
  }

  /** The held event `seq` of the source, unless it was released. */
  get(source: string, seq: number): HeldDelivery | undefined {
    const staged = this.staging.key("q", heldStageKey(source, seq)) as HeldDelivery | null | undefined;
    if (staged !== undefined) return staged ?? undefined;
    return this.tables.held.get([source, seq]);
  }

  /** Events held per source. */
  counts(): Map<string, number> {
    const counts = new Map<string, number>();
    const add = (source: string, n: number) => counts.set(source, (counts.get(source) ?? 0) + n);
    for (const [source] of this.tables.held.getKeys()) add(source, 1);
    for (const [key, value] of this.staging.keys("q")) {
      const [source = "", seq = ""] = key.split("\u0000");
      const committed = this.tables.held.doesExist([source, Number(seq)]);
      if (value === null && committed) add(source, -1);
      else if (value !== null && !committed) add(source, 1);
    }
    return counts;
  }

  /** Why the tenant cannot be exported now: a source paused, or events still held (not exported). */
  exportRefusal(): string | undefined {
    const paused = [...this.states()].filter(([, s]) => s.status === "paused").map(([source]) => source);
    const held = [...this.counts()].filter(([, n]) => n > 0).map(([source]) => source);
    const sources = [...new Set([...paused, ...held])].sort();
    if (sources.length === 0) return undefined;
    return `sources ${sources.join(", ")} are paused or hold events, which an export does not carry: resume them first`;
  }

  /** Every committed held event (an erasure looks for its subject in them). */
  *all(): Generator<HeldDelivery> {
    for (const { value } of this.tables.held.getRange()) yield value;
  }
}
