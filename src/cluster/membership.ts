/**
 * Heartbeats: each node puts its record into `mr-nodes` every `heartbeatMs` and watches the bucket.
 * Liveness is the local receipt time of a node's last heartbeat (the nodes' clocks need not agree,
 * and KV gives no expiry events on 2.9.10, so expiry never tells us anything).
 */
import type { KV } from "@nats-io/kv";
import type { ClusterTimings } from "./config.ts";

export interface NodeRecord {
  node_id: string;
  started_at: string;
  /** The node's HTTP base URL, where others redirect what they cannot forward (absent until it listens). */
  http_url?: string;
}

export class Membership {
  private readonly lastSeen = new Map<string, number>();
  /** Each node's advertised HTTP base URL, from its last heartbeat. */
  private readonly httpUrls = new Map<string, string>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private stopped = false;

  constructor(
    private readonly bucket: KV,
    private readonly self: NodeRecord,
    private readonly timings: ClusterTimings,
    private readonly now: () => number,
    /** Called when a node appears or leaves cleanly, so ownership reacts before its next tick. */
    private readonly onChange: () => void,
  ) {}

  async start(): Promise<void> {
    await this.beat();
    const watch = await this.bucket.watch({ key: ">" });
    void (async () => {
      for await (const entry of watch) {
        if (this.stopped) break;
        const known = this.lastSeen.has(entry.key);
        if (entry.operation === "PUT") {
          this.lastSeen.set(entry.key, this.now());
          this.noteUrl(entry.key, entry.string());
        } else {
          this.lastSeen.delete(entry.key);
          this.httpUrls.delete(entry.key);
        }
        if (known !== (entry.operation === "PUT")) this.onChange();
      }
    })();
    this.stopWatch = () => watch.stop();
    this.timer = setInterval(() => void this.beat().catch(() => undefined), this.timings.heartbeatMs);
  }

  private stopWatch = () => {};

  private noteUrl(nodeId: string, record: string): void {
    try {
      const url = (JSON.parse(record) as NodeRecord).http_url;
      if (typeof url === "string") this.httpUrls.set(nodeId, url);
      else this.httpUrls.delete(nodeId);
    } catch {
      this.httpUrls.delete(nodeId);
    }
  }

  /** Publishes this node's HTTP base URL with its heartbeat, at once. */
  async advertise(httpUrl: string): Promise<void> {
    this.self.http_url = httpUrl;
    await this.beat();
  }

  /** The HTTP base URL a live node advertises, if any. */
  httpUrlOf(nodeId: string): string | undefined {
    return this.isLive(nodeId) ? this.httpUrls.get(nodeId) : undefined;
  }

  private async beat(): Promise<void> {
    await this.bucket.put(this.self.node_id, JSON.stringify(this.self));
  }

  /** Nodes whose heartbeat arrived within `liveMs`, this node included while it beats. */
  live(): string[] {
    const cutoff = this.now() - this.timings.liveMs;
    return [...this.lastSeen].filter(([, seen]) => seen >= cutoff).map(([node]) => node);
  }

  isLive(nodeId: string): boolean {
    const seen = this.lastSeen.get(nodeId);
    return seen !== undefined && seen >= this.now() - this.timings.liveMs;
  }

  /** Stops beating and removes this node's key so the others react at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.stopWatch();
    await this.bucket.delete(this.self.node_id).catch(() => undefined);
  }
}
