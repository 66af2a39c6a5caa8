/**
 * `bun run soak`: the crash loop (SOAK_CYCLES, default 20; TEST_SEED replays a seed), then the
 * noisy-neighbour measurement when test/soak/noisy-neighbour.ts exists. Prints the figures and exits
 * non-zero on any loss, double, unclean reopening or 5xx.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { stopChildrenWithMe } from "../../scripts/children.ts";
import { parseCli } from "../../scripts/cli.ts";
import { testSeed } from "../helpers/random.ts";
import { runCrashLoop, summaryLines } from "./crash-loop.ts";

parseCli({
  usage: `Usage: bun run soak

The crash loop (servers killed with SIGKILL mid-write, every acknowledged write checked after each
reopening), then the noisy-neighbour measurement; exits non-zero on any loss, double, unclean
reopening or 5xx. Servers run as child processes on free loopback ports, stopped with the soak
(also on Ctrl-C, SIGTERM, SIGHUP). Takes no options but -h, --help; the environment chooses:

  SOAK_CYCLES=N   crash-loop cycles (default: 20)
  TEST_SEED=N     replays a seed
`,
});
stopChildrenWithMe();

const log = (line: string) => console.log(line);

interface NoisyNeighbourFigures {
  idle_p99_ms: number;
  flood_p99_ms: number;
  ratio: number;
}

/** The per-tenant rate-limit measurement lives in its own module, present once that work has landed. */
async function noisyNeighbour(): Promise<NoisyNeighbourFigures | undefined> {
  const path = join(import.meta.dir, "noisy-neighbour.ts");
  if (!existsSync(path)) return undefined;
  const module = (await import(path)) as {
    noisyNeighbour(log: (line: string) => void): Promise<NoisyNeighbourFigures>;
  };
  return module.noisyNeighbour(log);
}

const cycles = Number(process.env.SOAK_CYCLES ?? 20);
if (!Number.isSafeInteger(cycles) || cycles < 1) {
  console.error(`SOAK_CYCLES must be a positive integer, not ${process.env.SOAK_CYCLES}`);
  process.exit(2);
}

const report = await runCrashLoop({ cycles, seed: testSeed(), log });
for (const line of summaryLines(report)) log(line);
const failed = report.losses.length + report.doubles.length + report.unclean.length + report.serverErrors > 0;

let neighbourFailed = false;
try {
  const neighbour = await noisyNeighbour();
  log(
    neighbour
      ? `noisy neighbour: idle p99 ${neighbour.idle_p99_ms.toFixed(2)} ms, under a neighbour's flood ` +
          `${neighbour.flood_p99_ms.toFixed(2)} ms, ratio ${neighbour.ratio.toFixed(2)}×`
      : "noisy neighbour: test/soak/noisy-neighbour.ts is not there; skipped",
  );
} catch (error) {
  neighbourFailed = true;
  log(`noisy neighbour: the measurement failed: ${error instanceof Error ? error.message : error}`);
}
process.exit(failed || neighbourFailed ? 1 : 0);
