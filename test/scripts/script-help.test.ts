/**
 * Every script of package.json that runs a file of ours answers `--help` with its usage (exit 0)
 * and does nothing else: nothing written in its working directory or at MEMORY_RUNTIME_DATA_DIR,
 * no process left behind (none carries the run's marker variable, which children inherit), and an
 * unknown option is exit 2 with the usage on stderr, never a stack trace.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanEnv, ROOT, run } from "../helpers/spawn.ts";

const SCRIPTS: Record<string, string> = {
  setup: "scripts/setup.ts",
  "mail:ingest": "scripts/mail-ingest.ts",
  "mint-token": "scripts/mint-token.ts",
  "client:generate": "scripts/client-generate.ts",
  "client:python": "scripts/python-client-generate.ts",
  bench: "bench/run.ts",
  eval: "bench/eval/run.ts",
  "bench:embedders": "bench/embedders.ts",
  "embedder:distil": "scripts/distil-embedder.ts",
  soak: "test/soak/run.ts",
  fuzz: "test/fuzz/run.ts",
  "cluster:demo": "scripts/cluster-demo.ts",
  demo: "scripts/demo.ts",
  "soak:cluster": "test/cluster/soak.ts",
};

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Processes whose environment carries `marker` (ours only: others' environ is unreadable). */
function processesWith(marker: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, "latin1").includes(marker)) out.push(Number(name));
    } catch {
      // gone, or not ours
    }
  }
  return out;
}

/** Runs the script's file from an empty working directory, as `bun run <file> ...args`. */
async function runScript(file: string, args: string[]) {
  const cwd = mkdtempSync(join(tmpdir(), "mrt-help-"));
  dirs.push(cwd);
  const marker = `MRT_HELP_PROBE=${crypto.randomUUID()}`;
  const dataDir = join(cwd, "data");
  const env = cleanEnv({
    MRT_HELP_PROBE: marker.split("=")[1],
    MEMORY_RUNTIME_DATA_DIR: dataDir,
    MEMORY_RUNTIME_JWT_SECRET: "a-secret-of-at-least-32-bytes-for-the-scripts",
  });
  const { code, stdout, stderr } = await run(["bun", "run", join(ROOT, file), ...args], env, 30_000, cwd);
  return { code, stdout, stderr, left: readdirSync(cwd), dataDir, survivors: processesWith(marker) };
}

test("the list is package.json's: every script that runs a file of ours but the service", () => {
  const scripts = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts as Record<
    string,
    string
  >;
  const ours = Object.entries(scripts)
    .map(([name, command]) => [name, /bun (?:--watch )?run (\S+\.ts)/.exec(command)?.[1]] as const)
    .filter(([, file]) => file !== undefined && file !== "src/index.ts");
  expect(Object.fromEntries(ours)).toEqual(SCRIPTS);
});

describe.each(Object.entries(SCRIPTS))("bun run %s", (name, file) => {
  test("--help prints the usage, exits 0, and does nothing else", async () => {
    const r = await runScript(file, ["--help"]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
    expect(r.stdout).toStartWith(`Usage: bun run ${name}`);
    expect(r.stdout).toContain("--help");
    expect({ left: r.left, dataDir: existsSync(r.dataDir), survivors: r.survivors }).toEqual({
      left: [],
      dataDir: false,
      survivors: [],
    });
  });

  test("an unknown option exits 2 with the usage on stderr", async () => {
    const r = await runScript(file, ["--no-such-option"]);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: "" });
    expect(r.stderr).toContain("--no-such-option");
    expect(r.stderr).toContain(`Usage: bun run ${name}`);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect({ left: r.left, survivors: r.survivors }).toEqual({ left: [], survivors: [] });
  });
});
