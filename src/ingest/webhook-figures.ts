/**
 * The webhook operations' figures on this node, for `GET /metrics` (src/compose/runtime-samples.ts):
 * how many tenants have each source paused and how many events they hold, as last learned, and
 * what pauses, resumes, releases, replays, discards and retention did since the process started. Per-tenant
 * figures never leave this class: the metrics add them up per source (labels stay bounded).
 */

/** What a tenant holds of one source, as last learned. */
export interface SourceHold {
  paused: boolean;
  held: number;
}

export interface WebhookFiguresSnapshot {
  /** Per source: tenants with it paused, events held. */
  sources: Array<{ source: string; paused: number; held: number }>;
  /** Pauses and resumes asked, by source and `paused` | `resumed`. */
  changes: Array<{ source: string; status: string; count: number }>;
  /** Held events a resume applied, by source and outcome. */
  released: Array<{ source: string; outcome: string; count: number }>;
  /** Dead letters replayed (single and bulk), by their new status. */
  replays: Array<{ status: string; count: number }>;
  /** Records retention removed, by kind (`delivery_log`, `dead_letter`). */
  purged: Array<{ record: string; count: number }>;
  /** Dead letters discarded (single and bulk), by source. */
  discards: Array<{ source: string; count: number }>;
}

export class WebhookFigures {
  /** tenant → source → what it holds; a tenant with nothing paused or held has no entry. */
  private readonly holds = new Map<string, Map<string, SourceHold>>();
  private readonly changes = new Map<string, number>();
  private readonly releasedBy = new Map<string, number>();
  private readonly replays = new Map<string, number>();
  private readonly purged = new Map<string, number>();
  private readonly discards = new Map<string, number>();

  /** The tenant's state of one source as just learned (a pause, a resume's end). */
  set(tenantId: string, source: string, hold: SourceHold): void {
    const sources = this.holds.get(tenantId) ?? new Map<string, SourceHold>();
    if (hold.paused || hold.held > 0) sources.set(source, { ...hold });
    else sources.delete(source);
    if (sources.size > 0) this.holds.set(tenantId, sources);
    else this.holds.delete(tenantId);
  }

  /** The tenant's whole state as just read (its sources list, the upkeep's purge): sources not named hold nothing. */
  setAll(tenantId: string, sources: Array<{ source: string } & SourceHold>): void {
    this.holds.delete(tenantId);
    for (const { source, paused, held } of sources) this.set(tenantId, source, { paused, held });
  }

  /** A delivery to a paused source held `n` events. */
  held(tenantId: string, source: string, n: number): void {
    const now = this.holds.get(tenantId)?.get(source);
    this.set(tenantId, source, { paused: true, held: (now?.held ?? 0) + n });
  }

  /** A resume applied a held event. */
  released(tenantId: string, source: string, outcome: string): void {
    const now = this.holds.get(tenantId)?.get(source);
    if (now) this.set(tenantId, source, { ...now, held: Math.max(0, now.held - 1) });
    bump(this.releasedBy, `${source}\u0000${outcome}`);
  }

  changed(source: string, status: "paused" | "resumed"): void {
    bump(this.changes, `${source}\u0000${status}`);
  }

  replayed(status: string): void {
    bump(this.replays, status);
  }

  discarded(source: string): void {
    bump(this.discards, source);
  }

  purgedRecords(record: "delivery_log" | "dead_letter", n: number): void {
    if (n > 0) bump(this.purged, record, n);
  }

  /** Forgets tenants no longer served here (deleted, or their partition moved away). */
  keepOnly(tenantIds: ReadonlySet<string>): void {
    for (const tenantId of [...this.holds.keys()]) if (!tenantIds.has(tenantId)) this.holds.delete(tenantId);
  }

  snapshot(): WebhookFiguresSnapshot {
    const bySource = new Map<string, { paused: number; held: number }>();
    for (const sources of this.holds.values())
      for (const [source, hold] of sources) {
        const sum = bySource.get(source) ?? { paused: 0, held: 0 };
        sum.paused += hold.paused ? 1 : 0;
        sum.held += hold.held;
        bySource.set(source, sum);
      }
    const split = (map: Map<string, number>) =>
      [...map].map(([key, count]) => {
        const [a = "", b = ""] = key.split("\u0000");
        return { a, b, count };
      });
    return {
      sources: [...bySource].map(([source, s]) => ({ source, ...s })),
      changes: split(this.changes).map(({ a, b, count }) => ({ source: a, status: b, count })),
      released: split(this.releasedBy).map(({ a, b, count }) => ({ source: a, outcome: b, count })),
      replays: [...this.replays].map(([status, count]) => ({ status, count })),
      purged: [...this.purged].map(([record, count]) => ({ record, count })),
      discards: [...this.discards].map(([source, count]) => ({ source, count })),
    };
  }
}

function bump(map: Map<string, number>, key: string, n = 1): void {
  map.set(key, (map.get(key) ?? 0) + n);
}
