/** The server: the runtime of src/lib.ts on the process environment, stopped cleanly on SIGTERM. */
import { type ClusterConfig, clusterConfigOf } from "./cluster/config.ts";
import { type ClusterRuntime, createClusterRuntime, serveClusterNode } from "./cluster/serve.ts";
import { ConfigError } from "./config/config.ts";
import { createRuntime, type MemoryRuntime } from "./lib.ts";
import { flushStdout, stdoutSink } from "./telemetry/access-log.ts";

/** What closing takes after the requests' deadline (mailboxes drained, indexes saved, vaults closed) at most. */
const CLOSE_ALLOWANCE_MS = 10_000;

/**
 * A configuration that cannot start, a data directory another process owns (DataDirInUse), a port
 * in use (PortInUse): said on stderr, exit 78 (EX_CONFIG). Anything else is thrown on.
 */
function refuseOn(error: unknown): never {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`memory-runtime: refusing to start: ${error.message}`);
  process.exit(78);
}

async function main(): Promise<void> {
  let runtime: MemoryRuntime;
  let cluster: ClusterConfig | undefined;
  let clustered: ClusterRuntime | undefined;
  try {
    // Cluster mode only when MEMORY_RUNTIME_CLUSTER_URL is set (docs/cluster.md): its ports go in
    // when the runtime is composed.
    cluster = clusterConfigOf(process.env);
    // The access log goes to stdout (docs/observability.md#access-log).
    const options = { env: process.env, accessLog: stdoutSink };
    // The lines of the last event-loop turn go out with the process (the sink writes once a turn).
    process.on("exit", flushStdout);
    clustered = cluster ? createClusterRuntime(options) : undefined;
    runtime = clustered?.runtime ?? createRuntime(options);
  } catch (error) {
    refuseOn(error);
  }
  const served =
    cluster && clustered
      ? await serveClusterNode(clustered, cluster).catch((error) => {
          if (error instanceof ConfigError) refuseOn(error);
          console.error(`memory-runtime: cannot join the cluster at MEMORY_RUNTIME_CLUSTER_URL: ${error}`);
          process.exit(69); // EX_UNAVAILABLE
        })
      : undefined;
  let url: string;
  try {
    url = served?.url ?? runtime.listen().url;
  } catch (error) {
    refuseOn(error);
  }
  const node = cluster ? ` (cluster node ${cluster.nodeId})` : "";
  console.log(`memory-runtime ${runtime.internals.stores.config.version} listening on ${url}${node}`);
  process.on("SIGHUP", () => {
    void runtime.reload().then((report) => console.log(`memory-runtime: SIGHUP: ${JSON.stringify(report)}`));
  });
  let stopping = false;
  const timeoutMs = runtime.internals.stores.config.shutdownTimeoutMs;
  // docs/operations.md, "Graceful shutdown": readiness fails and new requests get 503 at once; the
  // requests in flight have `timeoutMs` to finish; then mailboxes drain, indexes are saved, vaults close.
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const began = performance.now();
    console.log(
      `memory-runtime: ${signal}: stopping: finishing the requests in flight (at most ${timeoutMs / 1000} s)`,
    );
    // A stop wedged past its bound (a vault that does not close) must not outlive the orchestrator's grace.
    setTimeout(() => {
      console.error(
        `memory-runtime: ${signal}: not stopped ${(timeoutMs + CLOSE_ALLOWANCE_MS) / 1000} s later; exiting`,
      );
      process.exit(1);
    }, timeoutMs + CLOSE_ALLOWANCE_MS);
    try {
      const drained = await (served ? served.stop() : runtime.stop());
      const cut = drained.cut > 0 ? `, ${drained.cut} cut at the deadline` : "";
      const ms = Math.round(performance.now() - began);
      console.log(`memory-runtime: stopped in ${ms} ms (${drained.inFlight} requests were in flight${cut})`);
      process.exit(0);
    } catch (error) {
      console.error(
        `memory-runtime: ${signal}: the stop failed: ${error instanceof Error ? error.stack : error}`,
      );
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
  // A data file grown to the process's file-size limit (RLIMIT_FSIZE) must fail its write (EFBIG: answered
  // 507 like a full disk, docs/operations.md#storage-faults), not end the process, SIGXFSZ's default.
  process.on("SIGXFSZ", () => undefined);
}

void main();
