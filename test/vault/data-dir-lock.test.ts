/**
 * The data directory's one owner and the port's, in one process (src/vault/data-dir-lock.ts,
 * src/http/server-options.ts): what an embedding program sees. A second runtime on a directory
 * in use throws DataDirInUse (a ConfigError) rather than exiting; a stopped runtime has released
 * it, so a restart in the same process works; a port in use throws PortInUse. The same for a
 * cluster node's runtime and its listener, which is bound before the node joins. The process-level
 * refusals (exit status, messages) are test/one-owner.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clusterConfigOf } from "../../src/cluster/config.ts";
import { createClusterRuntime, serveClusterNode } from "../../src/cluster/serve.ts";
import { ConfigError, createRuntime, DataDirInUse, type MemoryRuntime, PortInUse } from "../../src/lib.ts";
import { LOCK_FILE, lockDataDir } from "../../src/vault/data-dir-lock.ts";
import { freePort } from "../helpers/free-port.ts";
import { TEST_SECRET } from "../helpers/harness.ts";
import { startNatsServer } from "../helpers/nats-server.ts";

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "mrt-data-dir-lock-"));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

function envOf(dataDir: string, extra: Record<string, string> = {}) {
  return {
    MEMORY_RUNTIME_JWT_SECRET: TEST_SECRET,
    MEMORY_RUNTIME_DATA_DIR: dataDir,
    MEMORY_RUNTIME_EMBEDDER: "hash",
    MEMORY_RUNTIME_LOG: "off",
    HOST: "127.0.0.1",
    ...extra,
  };
}

function runtimeOn(dataDir: string): MemoryRuntime {
  return createRuntime({ env: envOf(dataDir), log: () => undefined });
}

/** What `fn` throws (fails the test if it returns). */
function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("lockDataDir", () => {
  test("one holder at a time: the second is refused naming the directory, until the first releases", () => {
    const dir = join(root, "plain");
    const first = lockDataDir(dir);
    expect(readFileSync(join(dir, LOCK_FILE), "utf8")).toBe(`${process.pid}\n`);
    const refused = thrownBy(() => lockDataDir(dir));
    expect(refused).toBeInstanceOf(DataDirInUse);
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as DataDirInUse).holderPid).toBe(process.pid);
    expect((refused as Error).message).toContain(`the data directory ${dir} is in use`);
    first.release();
    first.release();
    expect(readFileSync(join(dir, LOCK_FILE), "utf8")).toBe("");
    const second = lockDataDir(dir);
    second.release();
  });

  test("a directory that cannot be made is a ConfigError naming the lock file", () => {
    const blocked = join(root, "plain", LOCK_FILE, "below-a-file");
    const refused = thrownBy(() => lockDataDir(blocked));
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as Error).message).toContain(join(blocked, LOCK_FILE));
  });
});

describe("createRuntime on a data directory", () => {
  test("a second runtime is refused (DataDirInUse); after the first's stop, a restart works", async () => {
    const dir = join(root, "runtime");
    const first = runtimeOn(dir);
    const refused = thrownBy(() => runtimeOn(dir));
    expect(refused).toBeInstanceOf(DataDirInUse);
    expect((refused as Error).message).toContain(
      `the data directory ${dir} is in use by another runtime of this process`,
    );
    // The refused one took nothing: the first still serves.
    const health = await first.app.handle(new Request("http://localhost/healthz"));
    expect(health.status).toBe(200);
    await first.stop();
    const again = runtimeOn(dir);
    expect((await again.app.handle(new Request("http://localhost/healthz"))).status).toBe(200);
    await again.stop();
  });

  test("a composition that fails releases the directory", async () => {
    const dir = join(root, "failed");
    // A secrets file others may read: refused while the runtime is composed, the lock already taken.
    const secrets = join(root, "readable-secrets.env");
    writeFileSync(secrets, "", { mode: 0o644 });
    const env = envOf(dir, { MEMORY_RUNTIME_SECRETS_FILE: secrets });
    expect(() => createRuntime({ env, log: () => undefined })).toThrow(/MEMORY_RUNTIME_SECRETS_FILE/);
    const after = runtimeOn(dir);
    await after.stop();
  });

  test("listen on a port in use throws PortInUse naming the address; the runtime stops cleanly", async () => {
    const holder = runtimeOn(join(root, "port-holder"));
    const { port } = holder.listen(0);
    const second = runtimeOn(join(root, "port-second"));
    try {
      const refused = thrownBy(() => second.listen(port));
      expect(refused).toBeInstanceOf(PortInUse);
      expect(refused).toBeInstanceOf(ConfigError);
      expect((refused as Error).message).toContain(`127.0.0.1:${port} is in use`);
      // Every request still reaches the holder.
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status)),
      );
      expect(answers).toEqual(Array(8).fill(200));
    } finally {
      await second.stop();
      await holder.stop();
    }
  });
});

describe("a cluster node", () => {
  test("its runtime is refused on a directory in use", async () => {
    const dir = join(root, "cluster-held");
    const holder = runtimeOn(dir);
    try {
      const env = envOf(dir, { MEMORY_RUNTIME_CLUSTER_URL: `nats://127.0.0.1:${freePort()}` });
      expect(() => createClusterRuntime({ env, log: () => undefined })).toThrow(DataDirInUse);
    } finally {
      await holder.stop();
    }
  });

  test("a served node holds the directory until its stop, then a node starts on it again", async () => {
    const nats = await startNatsServer();
    const dir = join(root, "cluster-served");
    const env = envOf(dir, {
      PORT: "0",
      MEMORY_RUNTIME_CLUSTER_URL: nats.url,
      MEMORY_RUNTIME_NODE_ID: "held",
    });
    try {
      const cluster = clusterConfigOf(env);
      if (!cluster) throw new Error("no cluster config");
      const served = await serveClusterNode(
        createClusterRuntime({ env, log: () => undefined }),
        cluster,
        () => {},
      );
      expect(() => createClusterRuntime({ env, log: () => undefined })).toThrow(DataDirInUse);
      await served.stop();
      const again = createClusterRuntime({ env, log: () => undefined });
      await again.runtime.stop();
      again.dataDirLock.release();
    } finally {
      await nats.stop();
    }
  }, 60_000);

  test("on a port in use it throws PortInUse before it joins (nothing listens at its NATS URL)", async () => {
    const holder = runtimeOn(join(root, "cluster-port-holder"));
    const { port } = holder.listen(0);
    const env = envOf(join(root, "cluster-port"), {
      PORT: String(port),
      MEMORY_RUNTIME_CLUSTER_URL: `nats://127.0.0.1:${freePort()}`,
      MEMORY_RUNTIME_NODE_ID: "refused",
    });
    const clustered = createClusterRuntime({ env, log: () => undefined });
    try {
      const cluster = clusterConfigOf(env);
      if (!cluster) throw new Error("no cluster config");
      await expect(serveClusterNode(clustered, cluster, () => undefined)).rejects.toThrow(PortInUse);
    } finally {
      await clustered.runtime.stop();
      clustered.dataDirLock.release();
      await holder.stop();
    }
  });
});
