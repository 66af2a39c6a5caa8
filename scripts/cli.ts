/**
 * The command line of every script of package.json (scripts/, bench/, test/*): one parser, so each
 * answers `--help` (usage on stdout, exit 0) before doing anything, and an unknown option or a
 * bad value with its usage on stderr and exit 2, never a stack trace. Options by node:util's
 * parseArgs; the usage text is the script's own.
 */
import { type ParseArgsOptionsConfig, parseArgs } from "node:util";

export interface CliSpec<O extends ParseArgsOptionsConfig> {
  /** How the script is run and what it does, then its options and environment: printed as is. */
  usage: string;
  options?: O;
  /** Arguments after the options (a file name); refused by default. */
  positionals?: boolean;
}

/** The script's name as its usage's first line gives it (`bun run NAME`). */
function nameOf(usage: string): string {
  return /bun run ([\w:.-]+)/.exec(usage)?.[1] ?? "script";
}

/** Usage on stderr with the reason, exit 2. */
export function usageExit(usage: string, reason: string): never {
  process.stderr.write(`${nameOf(usage)}: ${reason}\n\n${usage.trimEnd()}\n`);
  process.exit(2);
}

type Help = { help: { type: "boolean"; short: "h" } };
type Config<O extends ParseArgsOptionsConfig> = {
  args: string[];
  options: O & Help;
  strict: true;
  allowPositionals: boolean;
};

/** The parsed options; exits 0 on `--help`/`-h` and 2 on anything parseArgs refuses. */
export function parseCli<O extends ParseArgsOptionsConfig>(spec: CliSpec<O>, argv = process.argv.slice(2)) {
  const options = { ...spec.options, help: { type: "boolean", short: "h" } } as O & Help;
  const parsed = (() => {
    try {
      return parseArgs<Config<O>>({
        args: argv,
        options,
        allowPositionals: spec.positionals ?? false,
        strict: true,
      });
    } catch (error) {
      return usageExit(spec.usage, error instanceof Error ? error.message : String(error));
    }
  })();
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(`${spec.usage.trimEnd()}\n`);
    process.exit(0);
  }
  return parsed;
}

/** An integer option in [min, max] (`fallback` when not given), else usage and exit 2. */
export function intOption(
  usage: string,
  name: string,
  value: string | undefined,
  fallback: number,
  [min, max]: [number, number],
): number {
  const n = value === undefined ? fallback : Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    usageExit(usage, `--${name} must be an integer from ${min} to ${max}, not ${value}`);
  return n;
}
