/**
 * `bun run cluster:demo`: a three-node cluster on one machine. Starts Debian's `nats-server` with
 * JetStream (store under ./data/cluster-demo/nats) and three runtime nodes on ports 8081-8083
 * (data under ./data/cluster-demo/n1..n3) sharing the JWT secret of `.secrets/jwt-secret`; then
 * creates a tenant on node 1, writes through node 2, reads through node 3, and prints each node's
 * cluster view. Runs until Ctrl-C, which stops the nodes and the NATS server cleanly.
 * `NATS_SERVER_PATH` overrides `/usr/sbin/nats-server`; `CLUSTER_DEMO_NATS_PORT` (default 4222).
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { TokenService } from "../src/auth/tokens.ts";
import { OPERATOR_TENANT_ID } from "../src/models/common.ts";
import { systemClock } from "../src/runtime/clock.ts";

const ROOT = join(import.meta.dir, "..");
const DIR = join(ROOT, "data", "cluster-demo");
const NATS_PORT = Number(process.env.CLUSTER_DEMO_NATS_PORT ?? 4222);
const NODES = [
  { id: "n1", port: 8081 },
  { id: "n2", port: 8082 },
  { id: "n3", port: 8083 },
];

function secret(): string {
  const fromEnv = process.env.MEMORY_RUNTIME_JWT_SECRET;
  if (fromEnv) return fromEnv;
  const file = join(ROOT, ".secrets", "jwt-secret");
  if (!existsSync(file)) throw new Error("no JWT secret: run `bun run setup` first");
  return readFileSync(file, "utf8").trim();
}

function natsServer(): Subprocess {
  const path =
    process.env.NATS_SERVER_PATH ??
    (existsSync("/usr/sbin/nats-server") ? "/usr/sbin/nats-server" : "nats-server");
  const store = join(DIR, "nats");
  mkdirSync(store, { recursive: true });
  return Bun.spawn([path, "-js", "-sd", store, "-a", "127.0.0.1", "-p", String(NATS_PORT)], {
    stdout: "inherit",
    stderr: "ignore",
  });
}

function node(id: string, port: number, jwtSecret: string): Subprocess {
  const dataDir = join(DIR, id);
  mkdirSync(dataDir, { recursive: true });
  return Bun.spawn([process.execPath, "run", join(ROOT, "src/index.ts")], {
    env: {
      ...process.env,
      MEMORY_RUNTIME_JWT_SECRET: jwtSecret,
      MEMORY_RUNTIME_DATA_DIR: dataDir,
      MEMORY_RUNTIME_CLUSTER_URL: `nats://127.0.0.1:${NATS_PORT}`,
      MEMORY_RUNTIME_NODE_ID: id,
      PORT: String(port),
      HOST: "127.0.0.1",
    },
    stdout: "inherit",
    stderr: "inherit",
  });
}

/** The fields of the answers the demo reads. */
interface Answer {
  tenant_id: string;
  token: string;
  id: string;
  content: string;
}

async function call(port: number, method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as Answer };
}

/** Polls `/healthz` until all three nodes see each other and serve all 64 partitions between them. */
async function settled(): Promise<void> {
  for (let i = 0; i < 150; i++) {
    const views = await Promise.all(
      NODES.map((n) =>
        fetch(`http://127.0.0.1:${n.port}/healthz`)
          .then((r) => r.json() as Promise<{ cluster?: { nodes: string[]; partitions: number[] } }>)
          .catch(() => undefined),
      ),
    );
    const served = views.flatMap((v) => v?.cluster?.partitions ?? []);
    if (views.every((v) => v?.cluster?.nodes.length === 3) && new Set(served).size === 64) return;
    await Bun.sleep(200);
  }
  throw new Error("the cluster did not settle within 30 s");
}

async function main() {
  const jwtSecret = secret();
  const nats = natsServer();
  await Bun.sleep(300); // nats-server is ready in milliseconds
  const nodes = NODES.map((n) => node(n.id, n.port, jwtSecret));
  const stop = async () => {
    for (const p of nodes) p.kill("SIGTERM");
    await Promise.all(nodes.map((p) => p.exited));
    nats.kill("SIGINT");
    await nats.exited;
    process.exit(0);
  };
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
  await settled();
  const tokens = new TokenService(new TextEncoder().encode(jwtSecret), systemClock);
  const admin = (
    await tokens.mint({
      sub: "operator",
      tenantId: OPERATOR_TENANT_ID,
      roles: [],
      admin: true,
      ttlSeconds: 3600,
    })
  ).token;
  const created = await call(8081, "POST", "/admin/tenants", admin, { name: `Demo ${Date.now()}` });
  console.log(`\ncreated on n1: tenant ${created.body.tenant_id}`);
  const written = await call(8082, "POST", "/memory/facts", created.body.token, {
    content: "Written through node 2",
  });
  console.log(`written through n2: ${written.status} ${written.body.id}`);
  const read = await call(8083, "GET", `/memory/facts/${written.body.id}`, created.body.token);
  console.log(`read through n3: ${read.status} "${read.body.content}"`);
  for (const n of NODES) {
    const health = (await (await fetch(`http://127.0.0.1:${n.port}/healthz`)).json()) as {
      cluster: { partitions: number[]; nodes: string[] };
    };
    console.log(
      `${n.id}: serves ${health.cluster.partitions.length} partitions, sees ${health.cluster.nodes.join(", ")}`,
    );
  }
  console.log(`\nTENANT=${created.body.tenant_id}\nTOKEN=${created.body.token}`);
  console.log("nodes on http://127.0.0.1:8081, :8082, :8083; Ctrl-C stops them all");
}

await main();
