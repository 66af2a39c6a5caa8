import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type App, createApp, createRuntime, type Runtime } from "../../src/compose/http.ts";
import { type Env, loadConfig } from "../../src/config/config.ts";
import type { LocalModel } from "../../src/embedding/local-model.ts";
import { OPERATOR_TENANT_ID } from "../../src/models/common.ts";
import type { RuntimePorts } from "../../src/ports/runtime-ports.ts";
import { type Clock, systemClock } from "../../src/runtime/clock.ts";
import type { Telemetry } from "../../src/telemetry/telemetry.ts";
import { assertConforms } from "./openapi-conformance.ts";

export const TEST_SECRET = "test-secret-that-is-at-least-32-bytes-long!!";
export const BASE = "http://localhost";

export interface Harness {
  app: App;
  runtime: Runtime;
  dataDir: string;
  env: Record<string, string | undefined>;
  adminToken: string;
  /**
   * Sends a request through app.handle; `body` objects are sent as JSON. The response is checked
   * against the OpenAPI document (test/helpers/openapi-conformance.ts): a mismatch rejects.
   */
  call(method: string, path: string, opts?: CallOptions): Promise<Response>;
  // biome-ignore lint/suspicious/noExplicitAny: tests read response bodies field by field
  json<T = any>(
    method: string,
    path: string,
    opts?: CallOptions,
  ): Promise<{ status: number; body: T; res: Response }>;
  createTenant(name?: string): Promise<{ tenant_id: string; token: string }>;
  mint(tenantId: string, roles: string[], sub?: string): Promise<string>;
  /** Stops the runtime and starts a new one on the same data directory (a restart). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  raw?: string | Uint8Array | ArrayBuffer;
  headers?: Record<string, string>;
}

let counter = 0;

export async function startHarness(
  opts: {
    env?: Record<string, string>;
    clock?: Clock;
    dataDir?: string;
    /** Ports other than a single node's (src/ports/runtime-ports.ts), kept across restarts. */
    ports?: Partial<RuntimePorts>;
    /** The runtime's telemetry (a test's own sink or tracing), kept across restarts. */
    telemetry?: Telemetry;
    /** The sentence model of `local`/`tiered` (a fake the test controls), kept across restarts. */
    localModel?: LocalModel;
  } = {},
): Promise<Harness> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), "mrt-test-"));
  const env: Record<string, string | undefined> = {
    MEMORY_RUNTIME_JWT_SECRET: TEST_SECRET,
    MEMORY_RUNTIME_DATA_DIR: dataDir,
    // The suite's embedder, explicitly (the runtime's default, `tiered`, loads a sentence model of
    // ~12 ms a text): a test that is about another embedder says so in `opts.env`.
    MEMORY_RUNTIME_EMBEDDER: "hash",
    // The access log stays out of the test output; test/telemetry/ turns it on with a sink of its own.
    MEMORY_RUNTIME_LOG: "off",
    ...opts.env,
  };
  const clock = opts.clock ?? systemClock;
  const boot = () => {
    const runtime = createRuntime({
      config: loadConfig(env as Env),
      env: env as Env,
      clock,
      log: () => undefined,
      ports: opts.ports,
      telemetry: opts.telemetry,
      localModel: opts.localModel,
    });
    return { runtime, app: createApp(runtime) };
  };
  let { runtime, app } = boot();
  const adminToken = (
    await runtime.services.tokens.mint({
      sub: "operator",
      tenantId: OPERATOR_TENANT_ID,
      roles: [],
      admin: true,
      ttlSeconds: 3600,
    })
  ).token;

  const h: Harness = {
    get app() {
      return app;
    },
    get runtime() {
      return runtime;
    },
    dataDir,
    env,
    adminToken,
    async call(method, path, o = {}) {
      const headers: Record<string, string> = { ...o.headers };
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      let body: string | Uint8Array | ArrayBuffer | undefined = o.raw;
      if (o.body !== undefined) {
        body = JSON.stringify(o.body);
        headers["content-type"] ??= "application/json";
      }
      const res = await app.handle(new Request(BASE + path, { method, headers, body }));
      // Every answer a test receives must be one the OpenAPI document allows (route misses excepted).
      await assertConforms(app, method, path, res);
      return res;
    },
    async json(method, path, o) {
      const res = await h.call(method, path, o);
      const text = await res.text();
      // biome-ignore lint/suspicious/noExplicitAny: a parsed body of any shape
      let body: any = text;
      try {
        body = JSON.parse(text);
      } catch {}
      return { status: res.status, body, res };
    },
    async createTenant(name = `Tenant ${++counter} ${Math.random().toString(36).slice(2, 8)}`) {
      const { status, body } = await h.json("POST", "/admin/tenants", { token: adminToken, body: { name } });
      if (status !== 201) throw new Error(`createTenant: ${status} ${JSON.stringify(body)}`);
      return { tenant_id: body.tenant_id, token: body.token };
    },
    async mint(tenantId, roles, sub = "agent-test") {
      return (await runtime.services.tokens.mint({ sub, tenantId, roles, ttlSeconds: 3600 })).token;
    },
    async restart() {
      await runtime.stop();
      ({ runtime, app } = boot());
    },
    async close() {
      await runtime.stop();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return h;
}
