/**
 * The access log (issue 22, item 3): one JSON line per request, with its level, and never a token,
 * a body or a query string; `MEMORY_RUNTIME_LOG` quiets it. In process through a sink of the test's
 * own (the log writer is a port), and once on a real server's stdout.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AccessLog, levelOf } from "../../src/telemetry/access-log.ts";
import { createTelemetry } from "../../src/telemetry/telemetry.ts";
import { type LogLevel, telemetrySettingsOf } from "../../src/telemetry/telemetry-settings.ts";
import { type Harness, startHarness, TEST_SECRET } from "../helpers/harness.ts";
import { pollUntil } from "../helpers/poll.ts";
import {
  adminTokenFor,
  httpCall,
  type ServerProcess,
  startServerProcess,
} from "../helpers/server-process.ts";
import { nextTurn } from "./scrape.ts";

interface Line {
  time: string;
  level: string;
  msg: string;
  request_id: string;
  method: string;
  route: string;
  status: number;
  duration_ms: number;
  tenant_id: string | null;
  principal: { sub: string; kind: string; roles: string[] } | null;
}

const SECRET_CONTENT = "sk_live_51HxSECRETbodyVALUE0123456789";

/** A harness whose access log goes to `lines` at `level`. */
async function loggedHarness(level: LogLevel, lines: string[]): Promise<Harness> {
  const settings = telemetrySettingsOf({ MEMORY_RUNTIME_LOG: level }, "test");
  return startHarness({ telemetry: createTelemetry(settings, { sink: (line) => lines.push(line) }) });
}

describe("in process, at debug", () => {
  const lines: string[] = [];
  let h: Harness;
  let tenant: { tenant_id: string; token: string };
  let parsed: Line[];
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    h = await loggedHarness("debug", lines);
    tenant = await h.createTenant();
    const send = async (name: string, ...args: Parameters<Harness["call"]>) => {
      const res = await h.call(...args);
      ids[name] = res.headers.get("x-request-id") ?? "";
      return res;
    };
    const written = await send("write", "POST", "/memory/facts?note=query-text-not-logged", {
      token: tenant.token,
      body: { content: `the api key is ${SECRET_CONTENT}` },
    });
    expect(written.status).toBe(201);
    expect((await send("anonymous", "GET", "/tenants/me")).status).toBe(401);
    expect((await send("forged", "GET", "/tenants/me", { token: `${tenant.token}x` })).status).toBe(401);
    expect((await send("tenantOnAdmin", "GET", "/admin/tenants", { token: tenant.token })).status).toBe(403);
    const refusedToken = await h.mint(tenant.tenant_id, ["auditor"], "agent-refused");
    expect((await send("ungranted", "GET", "/memory/facts", { token: refusedToken })).status).toBe(403);
    expect(
      (await send("invalid", "POST", "/memory/facts", { token: tenant.token, body: { nope: 1 } })).status,
    ).toBe(422);
    expect((await send("scrape", "GET", "/metrics", { token: h.adminToken })).status).toBe(200);
    await nextTurn();
    parsed = lines.map((line) => JSON.parse(line) as Line);
  });
  afterAll(() => h.close());

  const lineOf = (name: string) => {
    const found = parsed.filter((l) => l.request_id === ids[name]);
    expect(found).toHaveLength(1);
    return found[0]!;
  };

  test("one JSON line per request, with its fields: the route template, the tenant and the caller", () => {
    const write = lineOf("write");
    expect(write).toMatchObject({
      level: "info",
      msg: "request",
      method: "POST",
      route: "/memory/facts",
      status: 201,
      tenant_id: tenant.tenant_id,
      principal: { kind: "tenant", sub: expect.any(String), roles: expect.any(Array) },
    });
    expect(new Date(write.time).toISOString()).toBe(write.time);
    expect(write.duration_ms).toBeGreaterThanOrEqual(0);
    expect(Object.keys(write).sort()).toEqual(
      [
        "duration_ms",
        "level",
        "method",
        "msg",
        "principal",
        "request_id",
        "route",
        "status",
        "tenant_id",
        "time",
      ].sort(),
    );
    // Every request of the test has its line, the tenant's creation by the operator included.
    expect(parsed.filter((l) => l.route === "/admin/tenants" && l.method === "POST")[0]).toMatchObject({
      status: 201,
      principal: { kind: "operator" },
      tenant_id: null,
    });
  });

  test("levels: warn for 401 and 403, info for other 4xx, debug for a successful scrape", () => {
    expect(lineOf("anonymous")).toMatchObject({
      level: "warn",
      status: 401,
      principal: null,
      tenant_id: null,
    });
    expect(lineOf("forged")).toMatchObject({ level: "warn", status: 401, principal: null });
    expect(lineOf("tenantOnAdmin")).toMatchObject({ level: "warn", status: 403, route: "/admin/tenants" });
    expect(lineOf("invalid")).toMatchObject({ level: "info", status: 422 });
    expect(lineOf("scrape")).toMatchObject({
      level: "debug",
      route: "/metrics",
      principal: { kind: "operator" },
    });
  });

  test("a 403 to a valid token names its principal and tenant (issue 36)", () => {
    // Refused by the auth plugin's own check (a tenant token on an operator route)...
    expect(lineOf("tenantOnAdmin")).toMatchObject({
      status: 403,
      tenant_id: tenant.tenant_id,
      principal: { kind: "tenant", sub: "tenant-admin", roles: ["tenant_admin"] },
    });
    // ...and by a permission no role of the token grants.
    expect(lineOf("ungranted")).toMatchObject({
      level: "warn",
      status: 403,
      route: "/memory/facts",
      tenant_id: tenant.tenant_id,
      principal: { kind: "tenant", sub: "agent-refused", roles: ["auditor"] },
    });
  });

  test("no token, body, query string or header value in any line", () => {
    const all = lines.join("\n");
    expect(all).not.toContain(tenant.token);
    expect(all).not.toContain(h.adminToken);
    expect(all).not.toContain(tenant.token.split(".")[2]!);
    expect(all).not.toContain(SECRET_CONTENT);
    expect(all).not.toContain("query-text-not-logged");
    expect(all).not.toContain("Bearer");
    expect(all.toLowerCase()).not.toContain("authorization");
  });
});

describe("levels and MEMORY_RUNTIME_LOG", () => {
  test("a 5xx is an error; 429 a warning; a failed probe is not debug", () => {
    expect(levelOf(500, "/memory/facts")).toBe("error");
    expect(levelOf(503, "/readyz")).toBe("warn");
    expect(levelOf(503, "/memory/facts")).toBe("error");
    expect(levelOf(429, "/memory/search")).toBe("warn");
    expect(levelOf(404, "/memory/facts/{sha8}")).toBe("info");
    expect(levelOf(200, "/livez")).toBe("debug");
    expect(levelOf(401, "/metrics")).toBe("warn");
  });

  test("each level writes what is at least as severe", () => {
    const statuses = [200, 404, 401, 503];
    const written = (level: LogLevel) => {
      const out: string[] = [];
      const log = new AccessLog(level, (line) => out.push(line));
      for (const status of statuses)
        log.write({
          at: 0,
          requestId: "r",
          method: "GET",
          route: "/x",
          status,
          durationMs: 1,
          tenantId: undefined,
          principal: undefined,
        });
      return out.map((line) => (JSON.parse(line) as Line).status);
    };
    expect(written("off")).toEqual([]);
    expect(written("error")).toEqual([503]);
    expect(written("warn")).toEqual([401, 503]);
    expect(written("info")).toEqual(statuses);
    expect(new AccessLog("off", () => undefined).enabled).toBe(false);
  });

  test("MEMORY_RUNTIME_LOG=off: requests are served and nothing is written", async () => {
    const lines: string[] = [];
    const h = await loggedHarness("off", lines);
    try {
      const t = await h.createTenant();
      expect((await h.call("GET", "/tenants/me")).status).toBe(401);
      expect((await h.call("GET", "/tenants/me", { token: t.token })).status).toBe(200);
      await nextTurn();
      expect(lines).toEqual([]);
    } finally {
      await h.close();
    }
  });

  test("MEMORY_RUNTIME_LOG=warn: only the refusals and failures", async () => {
    const lines: string[] = [];
    const h = await loggedHarness("warn", lines);
    try {
      const t = await h.createTenant();
      expect((await h.call("GET", "/tenants/me", { token: t.token })).status).toBe(200);
      expect((await h.call("GET", "/tenants/me")).status).toBe(401);
      await nextTurn();
      expect(lines.map((l) => (JSON.parse(l) as Line).status)).toEqual([401]);
    } finally {
      await h.close();
    }
  });

  test("a level the runtime does not know is refused at start", () => {
    expect(() => telemetrySettingsOf({ MEMORY_RUNTIME_LOG: "verbose" }, "t")).toThrow(/MEMORY_RUNTIME_LOG/);
  });
});

describe("the server process", () => {
  let dir: string;
  let server: ServerProcess;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "mrt-access-log-"));
    server = await startServerProcess({
      dataDir: join(dir, "data"),
      secret: TEST_SECRET,
      logDir: dir,
      label: "access-log",
      env: { MEMORY_RUNTIME_LOG: "info" },
    });
  });
  afterAll(async () => {
    server?.proc.kill();
    await server?.proc.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  test("writes its access log to stdout, one JSON line per request, after its start line", async () => {
    const admin = await adminTokenFor(TEST_SECRET);
    const created = await httpCall(server.base, "POST", "/admin/tenants", {
      token: admin,
      body: { name: "Logged" },
    });
    expect(created.status).toBe(201);
    expect((await httpCall(server.base, "GET", "/tenants/me")).status).toBe(401);
    const requests = await pollUntil(
      () =>
        server
          .output()
          .split("\n")
          .filter((line) => line.startsWith("{"))
          .map((line) => JSON.parse(line) as Line),
      (found) => found.length >= 2,
    );
    expect(requests.map((l) => [l.method, l.route, l.status, l.level])).toEqual([
      ["POST", "/admin/tenants", 201, "info"],
      ["GET", "/tenants/me", 401, "warn"],
    ]);
    expect(server.output()).not.toContain(admin);
  });
});
