/** Rate-limit configuration: read by loadConfig at start; a bad value stops the start, naming it. */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/config/config.ts";
import {
  DEFAULT_CLASS_LIMITS,
  DEFAULT_HOLD_MS,
  DEFAULT_MAX_BUCKETS,
} from "../../src/http/rate-limit-settings.ts";
import { OPERATOR_TENANT_ID } from "../../src/models/common.ts";
import { freePort } from "../helpers/free-port.ts";
import { cleanEnv, run } from "../helpers/spawn.ts";

const SECRET = "s".repeat(32);
const TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
const configWith = (over: Record<string, string>) =>
  loadConfig({ MEMORY_RUNTIME_JWT_SECRET: SECRET, ...over });

function refusal(over: Record<string, string>): string {
  try {
    configWith(over);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error(`expected loadConfig to refuse ${JSON.stringify(over)}`);
}

describe("rate limits in the configuration", () => {
  test("defaults: on, every class limited generously, no overrides", () => {
    const { rateLimits } = configWith({});
    expect(rateLimits).toEqual({
      enabled: true,
      classes: DEFAULT_CLASS_LIMITS,
      tenants: new Map(),
      maxBuckets: DEFAULT_MAX_BUCKETS,
      holdMs: DEFAULT_HOLD_MS,
    });
    expect(DEFAULT_HOLD_MS).toBe(250);
    for (const limit of Object.values(rateLimits.classes)) expect(limit!.burst).toBeGreaterThanOrEqual(1000);
  });

  test("class limits over the defaults: rate and burst, a rate alone (burst = one second), off", () => {
    const { rateLimits } = configWith({
      MEMORY_RUNTIME_RATE_LIMITS: "read=200:400, search=20 ,webhook=off,mcp=0.5",
    });
    expect(rateLimits.classes).toEqual({
      ...DEFAULT_CLASS_LIMITS,
      read: { perSecond: 200, burst: 400 },
      search: { perSecond: 20, burst: 20 },
      webhook: null,
      mcp: { perSecond: 0.5, burst: 1 },
    });
  });

  test("per-tenant overrides, the operator's under its all-zeros id; `off` switches everything off", () => {
    const { rateLimits } = configWith({
      [`MEMORY_RUNTIME_RATE_LIMITS_${TENANT}`]: "read=5000:5000,write=off",
      [`MEMORY_RUNTIME_RATE_LIMITS_${OPERATOR_TENANT_ID}`]: "admin=off",
      MEMORY_RUNTIME_RATE_LIMIT_BUCKETS: "5000",
      MEMORY_RUNTIME_RATE_LIMIT_HOLD_MS: "0",
    });
    expect([...rateLimits.tenants]).toEqual([
      [TENANT, { read: { perSecond: 5000, burst: 5000 }, write: null }],
      [OPERATOR_TENANT_ID, { admin: null }],
    ]);
    expect({ maxBuckets: rateLimits.maxBuckets, holdMs: rateLimits.holdMs }).toEqual({
      maxBuckets: 5000,
      holdMs: 0,
    });
    expect(configWith({ MEMORY_RUNTIME_RATE_LIMITS: "off" }).rateLimits.enabled).toBe(false);
  });

  test.each([
    ["MEMORY_RUNTIME_RATE_LIMITS", "read=fast", /read="fast"/],
    [
      "MEMORY_RUNTIME_RATE_LIMITS",
      "reads=10",
      /"reads=10".*classes: read, write, search, mcp, admin, webhook/,
    ],
    ["MEMORY_RUNTIME_RATE_LIMITS", "read=0", /read="0"/],
    ["MEMORY_RUNTIME_RATE_LIMITS", "read=-5", /read="-5"/],
    ["MEMORY_RUNTIME_RATE_LIMITS", "read=10:0", /read="10:0"/],
    ["MEMORY_RUNTIME_RATE_LIMITS", "read=10:", /read="10:"/],
    ["MEMORY_RUNTIME_RATE_LIMITS", "read=1e3", /read="1e3"/],
    ["MEMORY_RUNTIME_RATE_LIMITS", "read=10,read=20", /read is given twice/],
    ["MEMORY_RUNTIME_RATE_LIMITS", "read=10,", /"" is not/],
    ["MEMORY_RUNTIME_RATE_LIMITS", "on", /"on" is not/],
    [`MEMORY_RUNTIME_RATE_LIMITS_${TENANT}`, "search=off:3", /search="off:3"/],
    [
      "MEMORY_RUNTIME_RATE_LIMITS_01jdb2x6j3kq5w8z3m4n7p9r2s",
      "read=1",
      /"01jdb2x6j3kq5w8z3m4n7p9r2s" is not a tenant id/,
    ],
    ["MEMORY_RUNTIME_RATE_LIMITS_READ", "10", /"READ" is not a tenant id/],
    ["MEMORY_RUNTIME_RATE_LIMIT_BUCKETS", "5", /between 100 and/],
    ["MEMORY_RUNTIME_RATE_LIMIT_HOLD_MS", "20000", /between 0 and 10000/],
    ["MEMORY_RUNTIME_RATE_LIMIT_HOLD_MS", "-1", /between 0 and 10000/],
  ])("%s=%s is refused, naming the variable", (name, value, says) => {
    const message = refusal({ [name]: value });
    expect(message).toStartWith(name);
    expect(message).toMatch(says);
  });

  test("the server refuses to start on a bad value: exit 78, the variable named on stderr", async () => {
    const out = await run(
      ["bun", "run", "src/index.ts"],
      cleanEnv({
        MEMORY_RUNTIME_JWT_SECRET: SECRET,
        MEMORY_RUNTIME_DATA_DIR: join("/nonexistent", "never-created"),
        MEMORY_RUNTIME_RATE_LIMITS: "search=lots",
        PORT: String(freePort()),
      }),
    );
    expect(out.code).toBe(78);
    expect(out.stderr).toContain('refusing to start: MEMORY_RUNTIME_RATE_LIMITS: search="lots"');
  });
});
