/**
 * A cluster node's `GET /readyz` (the readiness port, src/cluster/readiness.ts): 503 naming the
 * cluster check until the node has joined and serves the partitions it should own, 200 then, and
 * 503 again once it stops.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clusterConfigOf } from "../../src/cluster/config.ts";
import { PARTITIONS } from "../../src/cluster/partition.ts";
import {
  type ClusterRuntime,
  type ClusterServer,
  createClusterRuntime,
  serveClusterNode,
} from "../../src/cluster/serve.ts";
import { loadConfig } from "../../src/config/config.ts";
import type { ReadinessChecks } from "../../src/models/probes.ts";
import { TEST_SECRET } from "../helpers/harness.ts";
import { type NatsServer, startNatsServer } from "../helpers/nats-server.ts";
import { pollUntil } from "../helpers/poll.ts";

let nats: NatsServer;
let dataDir: string;
let clustered: ClusterRuntime;
let node: ClusterServer | undefined;
const nodeLog: string[] = [];

async function readyz(send: (request: Request) => Response | Promise<Response>) {
  const res = await send(new Request("http://localhost/readyz"));
  // 200 `{status: "ready", checks}`, or a 503 problem `not_ready` with the same `checks`.
  return {
    status: res.status,
    body: (await res.json()) as { status: unknown; code?: string; checks: ReadinessChecks },
  };
}

beforeAll(async () => {
  nats = await startNatsServer();
  dataDir = mkdtempSync(join(tmpdir(), "mrt-readyz-"));
  const env = {
    MEMORY_RUNTIME_JWT_SECRET: TEST_SECRET,
    MEMORY_RUNTIME_DATA_DIR: dataDir,
    MEMORY_RUNTIME_EMBEDDER: "hash",
    MEMORY_RUNTIME_CLUSTER_URL: nats.url,
    MEMORY_RUNTIME_NODE_ID: "readyz-node",
    PORT: "0",
  };
  const log = (line: string) => void nodeLog.push(line);
  clustered = createClusterRuntime({ env, config: loadConfig(env), log });
}, 30_000);

afterAll(async () => {
  await node?.stop();
  await nats?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("GET /readyz in cluster mode", () => {
  test("before the node joins: 503, the cluster check says why", async () => {
    const { status, body } = await readyz((r) => clustered.runtime.app.handle(r));
    expect(status).toBe(503);
    expect(body.checks.cluster).toEqual({
      ok: false,
      detail: "not a member of the cluster (joining or leaving)",
    });
    expect(body.checks.system_store).toEqual({ ok: true });
  });

  test("once it serves every partition it should own (all of them, alone): 200 over its listener", async () => {
    node = await serveClusterNode(
      clustered,
      clusterConfigOf({ MEMORY_RUNTIME_CLUSTER_URL: nats.url, MEMORY_RUNTIME_NODE_ID: "readyz-node" })!,
      (line) => void nodeLog.push(line),
    );
    const url = node.url;
    // Claiming and restoring 64 partitions takes a moment: readiness is what says when it is over.
    const ready = await pollUntil(
      () => readyz((r) => fetch(url + new URL(r.url).pathname)),
      (answer) => answer.status === 200,
      { timeoutMs: 20_000, intervalMs: 50 },
    ).catch((error) => {
      throw new Error(`${error.message}\n${nodeLog.slice(-20).join("\n")}`);
    });
    expect(ready.body).toEqual({
      status: "ready",
      checks: { accepting: { ok: true }, system_store: { ok: true }, cluster: { ok: true } },
    });
    expect(node.node.view().partitions).toHaveLength(PARTITIONS);
  }, 30_000);

  test("after its stop: 503, every check failing", async () => {
    const stopping = node;
    node = undefined;
    const drained = await stopping?.stop();
    expect(drained).toEqual({ inFlight: 0, cut: 0 });
    const { status, body } = await readyz((r) => clustered.runtime.app.handle(r));
    expect(status).toBe(503);
    expect(body.checks.accepting.ok).toBe(false);
    expect(body.checks.system_store.ok).toBe(false);
    expect(body.checks.cluster?.ok).toBe(false);
  }, 30_000);
});
