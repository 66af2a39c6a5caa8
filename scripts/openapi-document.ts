/**
 * The service's OpenAPI document, produced in process: a runtime on a throwaway data directory
 * (the `hash` embedder, a random secret), its app asked `GET /openapi/json`, the runtime stopped
 * and the directory removed. Nothing listens and nothing outside the process is called.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp, createRuntime } from "../src/compose/http.ts";
import { type Env, loadConfig } from "../src/config/config.ts";

// biome-ignore lint/suspicious/noExplicitAny: a parsed OpenAPI document, read by openapi-typescript
export type OpenApiDocument = Record<string, any>;

export async function liveOpenApiDocument(): Promise<OpenApiDocument> {
  const dataDir = mkdtempSync(join(tmpdir(), "mrt-openapi-"));
  const env: Env = {
    MEMORY_RUNTIME_JWT_SECRET: crypto.getRandomValues(new Uint8Array(48)).toBase64(),
    MEMORY_RUNTIME_DATA_DIR: dataDir,
    MEMORY_RUNTIME_EMBEDDER: "hash",
    MEMORY_RUNTIME_LOG: "off",
  };
  const runtime = createRuntime({ config: loadConfig(env), env, log: () => undefined });
  try {
    const res = await createApp(runtime).handle(new Request("http://localhost/openapi/json"));
    if (res.status !== 200) throw new Error(`GET /openapi/json answered ${res.status}`);
    return (await res.json()) as OpenApiDocument;
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
