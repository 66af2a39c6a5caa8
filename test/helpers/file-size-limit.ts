/**
 * A full disk without root: the file-size limit (RLIMIT_FSIZE) of a running process, set with
 * util-linux's `prlimit` (a process may change the soft limits of its own user's processes). A
 * write past the limit fails with EFBIG (or a short write, which LMDB reports as EIO), exactly
 * where a full disk fails with ENOSPC; the process must ignore SIGXFSZ, whose default action
 * ends it (the server does, src/index.ts).
 */

/** Whether `prlimit` is installed (util-linux: on every Debian system). */
export function hasPrlimit(): boolean {
  return Bun.which("prlimit") !== null;
}

function prlimit(args: string[]): string {
  const done = Bun.spawnSync(["prlimit", ...args], { stdout: "pipe", stderr: "pipe" });
  if (done.exitCode !== 0) throw new Error(`prlimit ${args.join(" ")}: ${done.stderr.toString()}`);
  return done.stdout.toString().trim();
}

/** Files of process `pid` cannot grow past `bytes` (its soft limit; the hard limit is kept). */
export function limitFileSize(pid: number, bytes: number): void {
  prlimit(["--pid", String(pid), `--fsize=${bytes}:`]);
}

/** The soft limit back to the hard one: files grow freely again (space exists again). */
export function liftFileSizeLimit(pid: number): void {
  const hard = prlimit(["--pid", String(pid), "--fsize", "--output", "HARD", "--noheadings", "--raw"]);
  prlimit(["--pid", String(pid), `--fsize=${hard}:`]);
}
