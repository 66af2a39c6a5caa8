/**
 * Cluster settings, read from the same environment object as src/config/config.ts. Absent
 * `MEMORY_RUNTIME_CLUSTER_URL` means single-node mode: nothing of src/cluster runs.
 */
import { hostname } from "node:os";
import { ConfigError, type Env, integer } from "../config/config.ts";

export interface ClusterTimings {
  /** How often a node puts its heartbeat. */
  heartbeatMs: number;
  /** A node whose heartbeat was last seen longer ago than this is not live. */
  liveMs: number;
  /** How often ownership is reconciled and leases renewed. */
  tickMs: number;
  /** An owner serves a partition only this long after its last successful renewal. */
  serveMs: number;
  /** A lease not renewed for this long (as observed locally) may be taken over. */
  staleMs: number;
}

/** When the owner snapshots a partition it serves (docs/cluster.md, "Snapshots"). */
export interface SnapshotPolicy {
  /** After this many changelog writes since the partition's last snapshot… */
  everyRecords: number;
  /** …or this long after it (on the injected clock), when anything was written since. */
  everyMs: number;
}

export interface ClusterConfig {
  servers: string[];
  nodeId: string;
  timings: ClusterTimings;
  snapshots: SnapshotPolicy;
  /**
   * The node serving partition 0 snapshots the system store after this many `MR_SYSTEM` commands
   * (default DEFAULT_SYSTEM_SNAPSHOT_COMMANDS).
   */
  systemSnapshotCommands?: number;
  /**
   * The HTTP base URL other nodes redirect clients to for what they cannot forward over NATS (the
   * live stream): `MEMORY_RUNTIME_CLUSTER_ADVERTISE_URL`, else derived from the listening address
   * once the server listens.
   */
  advertiseUrl?: string;
}

export const DEFAULT_SNAPSHOT_POLICY: SnapshotPolicy = { everyRecords: 10_000, everyMs: 300_000 };
export const DEFAULT_SYSTEM_SNAPSHOT_COMMANDS = 10_000;

/** serveMs < staleMs: the old owner has stopped before a successor may claim (docs/cluster.md). */
export const DEFAULT_TIMINGS: ClusterTimings = {
  heartbeatMs: 1000,
  liveMs: 3000,
  tickMs: 1000,
  serveMs: 2500,
  staleMs: 4000,
};

const NODE_ID_RE = /^[A-Za-z0-9_-]{1,64}$/;

export function clusterConfigOf(env: Env): ClusterConfig | undefined {
  const url = env.MEMORY_RUNTIME_CLUSTER_URL?.trim();
  if (!url) return undefined;
  const servers = url.split(",").map((s) => s.trim());
  for (const server of servers) {
    if (!/^(nats|tls):\/\/[^\s/]+$/.test(server))
      throw new ConfigError(`MEMORY_RUNTIME_CLUSTER_URL: ${JSON.stringify(server)} is not a nats:// URL`);
  }
  const nodeId =
    env.MEMORY_RUNTIME_NODE_ID?.trim() ||
    hostname()
      .replace(/[^A-Za-z0-9_-]/g, "-")
      .slice(0, 64);
  if (!NODE_ID_RE.test(nodeId))
    throw new ConfigError("MEMORY_RUNTIME_NODE_ID must be 1-64 characters of A-Z, a-z, 0-9, _ and -");
  const snapshots: SnapshotPolicy = {
    everyRecords: integer(
      env,
      "MEMORY_RUNTIME_CLUSTER_SNAPSHOT_RECORDS",
      DEFAULT_SNAPSHOT_POLICY.everyRecords,
      1,
      10_000_000,
    ),
    everyMs:
      integer(
        env,
        "MEMORY_RUNTIME_CLUSTER_SNAPSHOT_SECONDS",
        DEFAULT_SNAPSHOT_POLICY.everyMs / 1000,
        1,
        86_400,
      ) * 1000,
  };
  const systemSnapshotCommands = integer(
    env,
    "MEMORY_RUNTIME_CLUSTER_SYSTEM_SNAPSHOT_COMMANDS",
    DEFAULT_SYSTEM_SNAPSHOT_COMMANDS,
    1,
    10_000_000,
  );
  return {
    servers,
    nodeId,
    timings: DEFAULT_TIMINGS,
    snapshots,
    systemSnapshotCommands,
    advertiseUrl: advertiseUrlOf(env),
  };
}

function advertiseUrlOf(env: Env): string | undefined {
  const text = env.MEMORY_RUNTIME_CLUSTER_ADVERTISE_URL?.trim();
  if (!text) return undefined;
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash)
    throw new ConfigError("MEMORY_RUNTIME_CLUSTER_ADVERTISE_URL must be an http(s) base URL");
  // A base: the redirected request's path is appended to it.
  return text.replace(/\/+$/, "");
}

/** The URL a node listening on `host:port` is reached at: a wildcard address names this machine. */
export function derivedAdvertiseUrl(host: string, port: number): string {
  const wildcard = host === "0.0.0.0" || host === "::" || host === "";
  const name = wildcard ? hostname() : host;
  return `http://${name.includes(":") ? `[${name}]` : name}:${port}`;
}
