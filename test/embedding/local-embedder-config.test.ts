import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config/config.ts";

const env = (over: Record<string, string> = {}) => ({ MEMORY_RUNTIME_JWT_SECRET: "s".repeat(32), ...over });

describe("MEMORY_RUNTIME_EMBEDDER=local", () => {
  test("is accepted, its dims 512 by default", () => {
    expect(loadConfig(env({ MEMORY_RUNTIME_EMBEDDER: "local" }))).toMatchObject({
      embedder: "local",
      embeddingDims: 512,
    });
    const explicit = loadConfig(
      env({ MEMORY_RUNTIME_EMBEDDER: "local", MEMORY_RUNTIME_EMBEDDING_DIMS: "512" }),
    );
    expect(explicit.embeddingDims).toBe(512);
  });

  test("other dims are refused with a message saying what to set", () => {
    let error: unknown;
    try {
      loadConfig(env({ MEMORY_RUNTIME_EMBEDDER: "local", MEMORY_RUNTIME_EMBEDDING_DIMS: "384" }));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      "MEMORY_RUNTIME_EMBEDDER=local makes vectors of 512 dimensions, but MEMORY_RUNTIME_EMBEDDING_DIMS is 384: " +
        "unset MEMORY_RUNTIME_EMBEDDING_DIMS or set it to 512",
    );
  });

  test("the other embedders keep their default of 384", () => {
    expect(loadConfig(env({ MEMORY_RUNTIME_EMBEDDER: "hash" })).embeddingDims).toBe(384);
    expect(loadConfig(env({ MEMORY_RUNTIME_EMBEDDER: "client" })).embeddingDims).toBe(384);
  });
});

describe("tiered, the default embedder", () => {
  test("is what an unset MEMORY_RUNTIME_EMBEDDER means, with 512 dims; local stays the model alone", () => {
    expect(loadConfig(env())).toMatchObject({ embedder: "tiered", embeddingDims: 512 });
    expect(loadConfig(env({ MEMORY_RUNTIME_EMBEDDER: "" }))).toMatchObject({ embedder: "tiered" });
    expect(loadConfig(env({ MEMORY_RUNTIME_EMBEDDER: "local" })).embedder).toBe("local");
  });

  test("dims kept from the old default (hash's 384) are refused, naming the way back", () => {
    let error: unknown;
    try {
      loadConfig(env({ MEMORY_RUNTIME_EMBEDDING_DIMS: "384" }));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      "the default embedder, tiered, makes vectors of 512 dimensions, but MEMORY_RUNTIME_EMBEDDING_DIMS is 384: " +
        "unset MEMORY_RUNTIME_EMBEDDING_DIMS or set it to 512, or set MEMORY_RUNTIME_EMBEDDER (hash, http, client)",
    );
  });
});
