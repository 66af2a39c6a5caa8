import pkg from "../package.json" with { type: "json" };
import { createApp, createRuntime } from "./app.ts";
import { ConfigError, loadConfig } from "./config.ts";

/** Entry point: read the configuration once, build the runtime, listen, stop cleanly on SIGTERM. */
function main(): void {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env, pkg.version);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`memory-runtime: refusing to start: ${error.message}`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  let runtime: ReturnType<typeof createRuntime>;
  try {
    runtime = createRuntime({ config, env: process.env });
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`memory-runtime: refusing to start: ${error.message}`);
      process.exit(78);
    }
    throw error;
  }
  const app = createApp(runtime.deps);
  // Bun's own cap sits above the API limit so oversize bodies get the API's 413 problem document.
  app.listen({ port: config.port, hostname: config.host, maxRequestBodySize: config.bodyLimitBytes * 4 });
  console.log(`memory-runtime ${config.version} listening on http://${config.host}:${app.server?.port}`);
  runtime.startConnectors();
  process.on("SIGHUP", () => {
    const refused = runtime.reloadCrmMapping();
    console.log(
      refused
        ? `memory-runtime: SIGHUP: kept the CRM mapping in force: ${refused}`
        : "memory-runtime: SIGHUP: CRM mapping reloaded",
    );
  });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`memory-runtime: ${signal}: draining actors and closing vaults`);
    await app.stop();
    await runtime.stop();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main();
