import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { TokenService } from "../src/auth/tokens.ts";
import { OPERATOR_TENANT_ID } from "../src/models/common.ts";
import { systemClock } from "../src/runtime/clock.ts";
import { readJson } from "./helpers/api.ts";
import { freePort } from "./helpers/free-port.ts";
import { TEST_SECRET } from "./helpers/harness.ts";
import { pollUntil } from "./helpers/poll.ts";
import { expectProblem } from "./helpers/problem.ts";
import { cleanEnv, ROOT, run } from "./helpers/spawn.ts";

const parents: string[] = [];

/** A fresh parent directory holding an empty `data` directory: each test starts from its own. */
function freshDataDir(): { parent: string; dataDir: string } {
  const parent = mkdtempSync(join(tmpdir(), "mrt-server-"));
  parents.push(parent);
  const dataDir = join(parent, "data");
  mkdirSync(dataDir);
  return { parent, dataDir };
}

interface Server {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  base: string;
  port: number;
  stdout: Promise<string>;
  stderr: Promise<string>;
}

const running: Server[] = [];

async function start(dataDir: string): Promise<Server> {
  const port = freePort();
  const proc = Bun.spawn(["bun", "run", "src/index.ts"], {
    cwd: ROOT,
    env: cleanEnv({
      MEMORY_RUNTIME_JWT_SECRET: TEST_SECRET,
      MEMORY_RUNTIME_DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
    }),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const server: Server = {
    proc,
    port,
    base: `http://127.0.0.1:${port}`,
    stdout: new Response(proc.stdout).text(),
    stderr: new Response(proc.stderr).text(),
  };
  running.push(server);
  await pollUntil(
    async () => {
      if (proc.exitCode !== null)
        throw new Error(`server exited early (${proc.exitCode}): ${await server.stderr}`);
      try {
        return (await fetch(`${server.base}/healthz`)).status;
      } catch {
        return 0;
      }
    },
    (s) => s === 200,
    { timeoutMs: 15_000, intervalMs: 25 },
  );
  return server;
}

async function stop(server: Server): Promise<number> {
  server.proc.kill("SIGTERM");
  const code = await Promise.race([server.proc.exited, Bun.sleep(10_000).then(() => -1)]);
  running.splice(running.indexOf(server), 1);
  return code;
}

let adminToken: string;

beforeAll(async () => {
  const tokens = new TokenService(new TextEncoder().encode(TEST_SECRET), systemClock);
  adminToken = (
    await tokens.mint({
      sub: "operator",
      tenantId: OPERATOR_TENANT_ID,
      roles: [],
      admin: true,
      ttlSeconds: 600,
    })
  ).token;
});

afterAll(async () => {
  for (const s of [...running]) {
    s.proc.kill("SIGKILL");
    await s.proc.exited;
  }
  for (const parent of parents) rmSync(parent, { recursive: true, force: true });
});

const auth = () => ({ authorization: `Bearer ${adminToken}`, "content-type": "application/json" });

/** Sends bytes as they are (no URL normalisation) and returns the status line's code. */
function rawRequest(port: number, text: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(text));
    let data = "";
    socket.on("data", (chunk) => {
      data += chunk.toString("latin1");
    });
    socket.on("end", () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0)));
    socket.on("error", reject);
    socket.setTimeout(5000, () => {
      socket.destroy();
      reject(new Error("raw request timed out"));
    });
  });
}

/** Creates a tenant (and, when asked, a role in it) through a running server's admin API. */
async function createTenant(
  server: Server,
  name: string,
  role?: string,
): Promise<{ tenant_id: string; token: string }> {
  const created = await fetch(`${server.base}/admin/tenants`, {
    method: "POST",
    headers: auth(),
    body: JSON.stringify({ name }),
  });
  expect(created.status).toBe(201);
  const tenant = await readJson(created);
  if (role) {
    const put = await fetch(`${server.base}/admin/roles/${tenant.tenant_id}`, {
      method: "POST",
      headers: auth(),
      body: JSON.stringify({ name: role, permissions: ["tenant:read"] }),
    });
    expect(put.status).toBe(201);
  }
  return tenant;
}

describe("the server process", () => {
  test("starts, serves the API over HTTP and stops cleanly on SIGTERM", async () => {
    const { parent, dataDir } = freshDataDir();
    const server = await start(dataDir);
    const health = await fetch(`${server.base}/healthz`);
    expect(health.status).toBe(200);
    expect(await readJson(health)).toMatchObject({ status: "ok", tenants: 0 });

    const tenant = await createTenant(server, "Process Co", "reader");
    const tenantId = tenant.tenant_id;

    const own = await fetch(`${server.base}/tenants`, {
      headers: { authorization: `Bearer ${tenant.token}` },
    });
    expect(own.status).toBe(200);
    expect((await readJson(own)).tenants.map((t: { tenant_id: string }) => t.tenant_id)).toEqual([tenantId]);

    // X-Request-Id: echoed when sane, replaced when not.
    const echoed = await fetch(`${server.base}/healthz`, { headers: { "x-request-id": "proc-req-1" } });
    expect(echoed.headers.get("x-request-id")).toBe("proc-req-1");
    const replaced = await fetch(`${server.base}/tenants`, { headers: { "x-request-id": "not sane!" } });
    const problem = await expectProblem(replaced, 401, "unauthorized");
    expect(problem.request_id).not.toBe("not sane!");
    expect(problem.request_id.length).toBeGreaterThan(0);

    // Over-limit bodies through the real server: declared and chunked.
    const big = JSON.stringify({ name: "x".repeat(1024 * 1024 + 10) });
    await expectProblem(
      await fetch(`${server.base}/admin/tenants`, { method: "POST", headers: auth(), body: big }),
      413,
      "payload_too_large",
    );
    const bytes = new TextEncoder().encode(big);
    let offset = 0;
    const chunked = new ReadableStream<Uint8Array>({
      pull(c) {
        if (offset >= bytes.length) return c.close();
        c.enqueue(bytes.slice(offset, offset + 65536));
        offset += 65536;
      },
    });
    await expectProblem(
      await fetch(`${server.base}/admin/tenants`, {
        method: "POST",
        headers: auth(),
        body: chunked,
        duplex: "half",
      } as RequestInit),
      413,
      "payload_too_large",
    );

    // Dot segments sent raw, without client-side normalisation, reach no tenant.
    const rawPaths: Array<[string, number]> = [
      ["/tenants/../../etc/healthz", 404],
      ["/admin/roles/..%2F..%2Fetc", 404],
      ["/admin/roles/../../../etc", 404],
    ];
    for (const [path, expected] of rawPaths) {
      const status = await rawRequest(
        server.port,
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${adminToken}\r\nConnection: close\r\n\r\n`,
      );
      expect({ path, status }).toEqual({ path, status: expected });
    }
    expect(readdirSync(parent)).toEqual(["data"]);
    expect(readdirSync(join(dataDir, "tenants"))).toEqual([tenantId]);

    expect(await stop(server)).toBe(0);
    expect(await server.stdout).toContain("SIGTERM");
  });

  test("a second start on the same data dir still lists the tenant and its roles", async () => {
    const { dataDir } = freshDataDir();
    const first = await start(dataDir);
    const tenantId = (await createTenant(first, "Process Co", "reader")).tenant_id;
    expect(await stop(first)).toBe(0);

    const server = await start(dataDir);
    const listed = await fetch(`${server.base}/admin/tenants`, { headers: auth() });
    expect(listed.status).toBe(200);
    const tenants = (await readJson(listed)).tenants;
    expect(tenants).toEqual([
      expect.objectContaining({ tenant_id: tenantId, name: "Process Co", role_count: 2 }),
    ]);
    const roles = await readJson(fetch(`${server.base}/admin/roles/${tenantId}`, { headers: auth() }));
    expect(roles.roles.map((r: { name: string }) => r.name)).toEqual(["tenant_admin", "reader"]);
    expect((await readJson(fetch(`${server.base}/healthz`))).tenants).toBe(1);
    expect(await stop(server)).toBe(0);
  });
});

describe("refusing to start", () => {
  /** Starts with `secret` on a data directory that must never be made; returns what it printed. */
  const startWith = async (secret: string | undefined) => {
    const { parent } = freshDataDir();
    const out = await run(
      ["bun", "run", "src/index.ts"],
      cleanEnv({
        MEMORY_RUNTIME_JWT_SECRET: secret,
        MEMORY_RUNTIME_DATA_DIR: join(parent, "never"),
        PORT: String(freePort()),
      }),
    );
    // Nothing was written for the refused start.
    expect(readdirSync(parent)).toEqual(["data"]);
    return out;
  };

  test("without MEMORY_RUNTIME_JWT_SECRET: non-zero exit, naming the variable and how to make one, nothing written", async () => {
    const out = await startWith(undefined);
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain("MEMORY_RUNTIME_JWT_SECRET");
    expect(out.stderr).toMatch(/openssl rand|randomUUID/);
  });

  test("with a secret under 32 bytes: non-zero exit, naming the variable and how to make one, nothing written", async () => {
    const out = await startWith("short-secret-31-bytes-long-xxxx");
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain("MEMORY_RUNTIME_JWT_SECRET");
    expect(out.stderr).toMatch(/32/);
    expect(out.stderr).toMatch(/openssl rand|randomUUID/);
    expect(out.stderr).not.toContain("short-secret-31-bytes-long-xxxx");
  });
});
