/**
 * `bun run cluster:demo`: a three-node cluster on one machine. Starts Debian's `nats-server` with
 * JetStream (store under <data-dir>/nats) and three runtime nodes on consecutive ports from --port
 * (data under <data-dir>/n1..n3) sharing the JWT secret of `.secrets/jwt-secret`; then creates a
 * tenant on node 1, writes through node 2, reads through node 3, and prints each node's cluster
 * view. Runs until Ctrl-C (or SIGTERM, SIGHUP), which stops the nodes and the NATS server; they are
 * stopped too when the demo fails, and sent SIGTERM by the kernel when it is killed (SIGKILL). The nodes' and the NATS server's logs go to files in the data
 * directory unless --verbose.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { TokenService } from "../src/auth/tokens.ts";
import { OPERATOR_TENANT_ID } from "../src/models/common.ts";
import { systemClock } from "../src/runtime/clock.ts";
import { diesWithMe, stopChildrenWithMe, stopDescendants } from "./children.ts";
import { intOption, parseCli } from "./cli.ts";

const ROOT = join(import.meta.dir, "..");

const USAGE = `Usage: bun run cluster:demo [options]

A three-node cluster on this machine: nats-server (JetStream) and three runtime nodes on
127.0.0.1, a tenant created on node 1, written through node 2, read through node 3. Runs until
Ctrl-C, SIGTERM or SIGHUP, which stop the nodes and the NATS server.

Options:
  --port N        the first node's port; the others take the next two (default: 8081)
  --nats-port N   the NATS server's port (default: CLUSTER_DEMO_NATS_PORT, else 4222)
  --data-dir DIR  where the nodes and the NATS server keep their data and logs
                  (default: ./data/cluster-demo)
  --verbose       the nodes' and the NATS server's logs on this terminal, not in <data-dir>/*.log
  -h, --help      show this help

Environment: MEMORY_RUNTIME_JWT_SECRET (else .secrets/jwt-secret, written by bun run setup),
NATS_SERVER_PATH (default: /usr/sbin/nats-server).
`;

const { values } = parseCli({
  usage: USAGE,
  options: {
    port: { type: "string" },
    "nats-port": { type: "string" },
    "data-dir": { type: "string" },
    verbose: { type: "boolean", default: false },
  },
});
const FIRST_PORT = intOption(USAGE, "port", values.port, 8081, [1, 65533]);
const NATS_PORT = intOption(
  USAGE,
  "nats-port",
  values["nats-port"] ?? process.env.CLUSTER_DEMO_NATS_PORT,
  4222,
  [1, 65535],
);
const DIR = values["data-dir"] ?? join(ROOT, "data", "cluster-demo");
const VERBOSE = values.verbose ?? false;
const NODES = ["n1", "n2", "n3"].map((id, i) => ({ id, port: FIRST_PORT + i }));

function secret(): string {
  const fromEnv = process.env.MEMORY_RUNTIME_JWT_SECRET;
  if (fromEnv) return fromEnv;
  const file = join(ROOT, ".secrets", "jwt-secret");
  if (!existsSync(file)) throw new Error("no JWT secret: run `bun run setup` first");
  return readFileSync(file, "utf8").trim();
}

/**
 * A child's output: this terminal with --verbose, else its own log file in the data directory
 * (appended, one descriptor for both streams so that neither overwrites the other).
 */
function output(name: string): "inherit" | number {
  return VERBOSE ? "inherit" : openSync(join(DIR, `${name}.log`), "a");
}

function natsServer(): Subprocess {
  const path =
    process.env.NATS_SERVER_PATH ??
    (existsSync("/usr/sbin/nats-server") ? "/usr/sbin/nats-server" : "nats-server");
  const store = join(DIR, "nats");
  mkdirSync(store, { recursive: true });
  const log = output("nats");
  const cmd = [path, "-js", "-sd", store, "-a", "127.0.0.1", "-p", String(NATS_PORT)];
  const proc = Bun.spawn(diesWithMe(cmd), {
    stdout: log,
    stderr: VERBOSE ? "ignore" : log,
  });
  if (typeof log === "number") closeSync(log);
  return proc;
}

function node(id: string, port: number, jwtSecret: string): Subprocess {
  const dataDir = join(DIR, id);
  mkdirSync(dataDir, { recursive: true });
  const log = output(id);
  const proc = Bun.spawn(diesWithMe([process.execPath, "run", join(ROOT, "src/index.ts")]), {
    env: {
      ...process.env,
      MEMORY_RUNTIME_JWT_SECRET: jwtSecret,
      MEMORY_RUNTIME_DATA_DIR: dataDir,
      MEMORY_RUNTIME_CLUSTER_URL: `nats://127.0.0.1:${NATS_PORT}`,
      MEMORY_RUNTIME_NODE_ID: id,
      PORT: String(port),
      HOST: "127.0.0.1",
    },
    stdout: log,
    stderr: log,
  });
  if (typeof log === "number") closeSync(log);
  return proc;
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
  mkdirSync(DIR, { recursive: true });
  natsServer();
  await Bun.sleep(300); // nats-server is ready in milliseconds
  for (const n of NODES) nodes.push(node(n.id, n.port, jwtSecret));
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
  const [n1, n2, n3] = NODES.map((n) => n.port) as [number, number, number];
  const created = await call(n1, "POST", "/admin/tenants", admin, { name: `Demo ${Date.now()}` });
  console.log(`\ncreated on n1: tenant ${created.body.tenant_id}`);
  const written = await call(n2, "POST", "/memory/facts", created.body.token, {
    content: "Written through node 2",
  });
  console.log(`written through n2: ${written.status} ${written.body.id}`);
  const read = await call(n3, "GET", `/memory/facts/${written.body.id}`, created.body.token);
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
  const logs = VERBOSE ? "" : ` (logs in ${join(DIR, "*.log")})`;
  console.log(`nodes on http://127.0.0.1:${n1}, :${n2}, :${n3}${logs}; Ctrl-C stops them all`);
}

const nodes: Subprocess[] = [];

/** The nodes first (SIGTERM: they leave the cluster while the NATS server is still there). */
async function stopNodes(): Promise<void> {
  for (const p of nodes) p.kill("SIGTERM");
  await Promise.race([Promise.all(nodes.map((p) => p.exited)), Bun.sleep(15_000)]);
}

stopChildrenWithMe({ first: stopNodes });
try {
  await main();
} catch (error) {
  console.error(`cluster:demo: ${error instanceof Error ? error.message : String(error)}`);
  await stopNodes();
  await stopDescendants();
  process.exit(1);
}
