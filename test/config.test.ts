import { describe, expect, test } from "bun:test";
import { ConfigError, DEFAULT_CRM_MAPPING, loadConfig, MIN_SECRET_BYTES } from "../src/config/config.ts";

const SECRET = "s".repeat(32);
const env = (over: Record<string, string | undefined> = {}) => ({
  MEMORY_RUNTIME_JWT_SECRET: SECRET,
  ...over,
});

function refusal(e: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(e);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`expected loadConfig to refuse ${JSON.stringify(e)}`);
}

describe("loadConfig defaults", () => {
  test("every documented default", () => {
    const c = loadConfig(env(), "1.2.3");
    expect(new TextDecoder().decode(c.jwtSecret)).toBe(SECRET);
    expect(c).toMatchObject({
      port: 8080,
      host: "127.0.0.1",
      dataDir: "./data",
      tokenTtlSeconds: 3600,
      crmMappingPath: DEFAULT_CRM_MAPPING,
      crmMappingIsDefault: true,
      // The default embedder is tiered (docs/embedding-and-search.md, "The default: two tiers").
      embedder: "tiered",
      embeddingDims: 512,
      bodyLimitBytes: 1024 * 1024,
      actorIdleMs: 600_000,
      auditLimit: 10_000,
      version: "1.2.3",
    });
    expect(c.embeddingsUrl).toBeUndefined();
    expect(c.embeddingsApiKey).toBeUndefined();
  });

  test("empty strings count as unset", () => {
    const c = loadConfig(
      env({ PORT: "", HOST: "", MEMORY_RUNTIME_DATA_DIR: "", MEMORY_RUNTIME_EMBEDDER: "" }),
    );
    expect(c).toMatchObject({ port: 8080, host: "127.0.0.1", dataDir: "./data", embedder: "tiered" });
  });

  test("reads every variable it is given", () => {
    const c = loadConfig(
      env({
        PORT: "9090",
        HOST: "0.0.0.0",
        MEMORY_RUNTIME_DATA_DIR: "/var/lib/mrt",
        MEMORY_RUNTIME_TOKEN_TTL_SECONDS: "900",
        MEMORY_RUNTIME_CRM_MAPPING: "/etc/mrt/crm.json",
        MEMORY_RUNTIME_EMBEDDER: "http",
        MEMORY_RUNTIME_EMBEDDINGS_URL: "http://emb.local/v1",
        MEMORY_RUNTIME_EMBEDDINGS_MODEL: "m",
        MEMORY_RUNTIME_EMBEDDINGS_API_KEY: "k",
        MEMORY_RUNTIME_EMBEDDING_DIMS: "768",
        MEMORY_RUNTIME_BODY_LIMIT_BYTES: "2048",
        MEMORY_RUNTIME_ACTOR_IDLE_SECONDS: "30",
        MEMORY_RUNTIME_AUDIT_LIMIT: "50",
        MEMORY_RUNTIME_VERSION: "9.9.9",
      }),
    );
    expect(c).toMatchObject({
      port: 9090,
      host: "0.0.0.0",
      dataDir: "/var/lib/mrt",
      tokenTtlSeconds: 900,
      crmMappingPath: "/etc/mrt/crm.json",
      crmMappingIsDefault: false,
      embedder: "http",
      embeddingsUrl: "http://emb.local/v1",
      embeddingsModel: "m",
      embeddingsApiKey: "k",
      embeddingDims: 768,
      bodyLimitBytes: 2048,
      actorIdleMs: 30_000,
      auditLimit: 50,
      version: "9.9.9",
    });
  });

  test("does not read process.env", () => {
    const saved = process.env.PORT;
    process.env.PORT = "1234";
    try {
      expect(loadConfig(env()).port).toBe(8080);
    } finally {
      if (saved === undefined) delete process.env.PORT;
      else process.env.PORT = saved;
    }
  });
});

describe("loadConfig refusals", () => {
  test("a missing secret names the variable and how to make one", () => {
    for (const secret of [undefined, ""]) {
      const e = refusal({ MEMORY_RUNTIME_JWT_SECRET: secret });
      expect(e.message).toContain("MEMORY_RUNTIME_JWT_SECRET");
      expect(e.message).toMatch(/not set/);
      expect(e.message).toMatch(/openssl rand|randomUUID/);
    }
  });

  test("a secret under 32 bytes is refused, naming the variable, the length and how to make one", () => {
    const e = refusal({ MEMORY_RUNTIME_JWT_SECRET: "x".repeat(MIN_SECRET_BYTES - 1) });
    expect(e.message).toContain("MEMORY_RUNTIME_JWT_SECRET");
    expect(e.message).toContain("31");
    expect(e.message).toContain("32");
    expect(e.message).toMatch(/openssl rand|randomUUID/);
    expect(e.message).not.toContain("x".repeat(MIN_SECRET_BYTES - 1));
  });

  test("the secret length is counted in bytes, not characters", () => {
    // 16 two-byte characters = 32 bytes: accepted; 15 = 30 bytes: refused.
    expect(loadConfig({ MEMORY_RUNTIME_JWT_SECRET: "é".repeat(16) }).jwtSecret.byteLength).toBe(32);
    refusal({ MEMORY_RUNTIME_JWT_SECRET: "é".repeat(15) });
  });

  const bad: Array<[string, string]> = [
    ["PORT", "abc"],
    ["PORT", "70000"],
    ["PORT", "-1"],
    ["PORT", "80.5"],
    ["MEMORY_RUNTIME_TOKEN_TTL_SECONDS", "0"],
    ["MEMORY_RUNTIME_TOKEN_TTL_SECONDS", "ten"],
    ["MEMORY_RUNTIME_EMBEDDING_DIMS", "0"],
    ["MEMORY_RUNTIME_BODY_LIMIT_BYTES", "10"],
    ["MEMORY_RUNTIME_ACTOR_IDLE_SECONDS", "0"],
    ["MEMORY_RUNTIME_AUDIT_LIMIT", "1"],
    ["MEMORY_RUNTIME_EMBEDDER", "openai"],
  ];
  for (const [name, value] of bad) {
    test(`${name}=${value} is refused with a message naming it`, () => {
      const e = refusal(env({ [name]: value }));
      expect(e.message).toContain(name);
      expect(e.message).toContain(value);
    });
  }

  test("the http embedder needs its URL", () => {
    const e = refusal(env({ MEMORY_RUNTIME_EMBEDDER: "http" }));
    expect(e.message).toContain("MEMORY_RUNTIME_EMBEDDINGS_URL");
  });

  test("no refusal message echoes the secret", () => {
    const secret = "this-is-a-real-secret-value-0123456789";
    const e = refusal({ MEMORY_RUNTIME_JWT_SECRET: secret, PORT: "nope" });
    expect(e.message).not.toContain(secret);
  });
});
