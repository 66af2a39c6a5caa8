/**
 * Preloaded by bunfig.toml for every `bun test`: the default per-test timeout is the one
 * `bun run test` passes (`--timeout 30000`), so a bare `bun test` or `bun test <file>` agrees
 * with the test script. Bun 1.4.5 ignores a `[test] timeout` key in bunfig.toml (checked: a
 * 6 s test still failed at the built-in 5 s), hence this preload. `setDefaultTimeout` would also
 * override an explicit `--timeout` on the command line, so it is left alone when one is given.
 */
import { setDefaultTimeout } from "bun:test";
import { readFileSync } from "node:fs";

/** The timeout of the test script in package.json (`bun test --timeout 30000`). */
export const TEST_TIMEOUT_MS = 30_000;

/** Whether the command line names a timeout of its own (`--timeout 5000` or `--timeout=5000`). */
export function namesTimeout(argv: readonly string[]): boolean {
  return argv.some((arg) => arg === "--timeout" || arg.startsWith("--timeout="));
}

/** The process's own command line: Bun hands the preload an argv without its test flags. */
function commandLine(): string[] {
  try {
    return readFileSync("/proc/self/cmdline", "utf8").split("\0");
  } catch {
    // Not Linux: no way to see the flags, so the script's timeout applies.
    return [];
  }
}

if (!namesTimeout(commandLine())) setDefaultTimeout(TEST_TIMEOUT_MS);
