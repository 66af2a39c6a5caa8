/** The server: the runtime of src/lib.ts on the process environment, stopped cleanly on SIGTERM. */
import { ConfigError } from "./config.ts";
import { createRuntime, type MemoryRuntime } from "./lib.ts";

function main(): void {
  let runtime: MemoryRuntime;
  try {
    runtime = createRuntime({ env: process.env });
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`memory-runtime: refusing to start: ${error.message}`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  const { url } = runtime.listen();
  console.log(`memory-runtime ${runtime.internals.deps.config.version} listening on ${url}`);
  process.on("SIGHUP", () => {
    void runtime.reload().then((report) => console.log(`memory-runtime: SIGHUP: ${JSON.stringify(report)}`));
  });
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`memory-runtime: ${signal}: draining actors and closing vaults`);
    await runtime.stop();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main();
