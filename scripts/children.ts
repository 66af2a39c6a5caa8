/**
 * What a script started stops with it: on SIGINT, SIGTERM or SIGHUP every process below this one
 * (servers, nats-server, whatever a helper spawned) is sent SIGTERM, given `graceMs` to exit, then
 * SIGKILL; on any exit (the end, an error) whatever is left is killed. Descendants are read from
 * /proc (Linux), so children spawned inside helpers are found without being registered. A child
 * spawned through `diesWithMe` is stopped by the kernel even when this process is killed.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";

const SIGNALS = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 } as const;

/** The parent pid of each process, from /proc/<pid>/stat (the field after the command's closing paren). */
function parents(): Map<number, number> {
  const out = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      out.set(Number(name), ppid);
    } catch {
      // exited while being read
    }
  }
  return out;
}

/** Every process below `root`, children before their own children. */
export function descendants(root = process.pid): number[] {
  const byParent = new Map<number, number[]>();
  for (const [pid, ppid] of parents()) byParent.set(ppid, [...(byParent.get(ppid) ?? []), pid]);
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0)
    for (const child of byParent.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child);
    }
  return out;
}

function signal(pids: number[], name: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, name);
    } catch {
      // already gone
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to every descendant, SIGKILL to those still there after `graceMs`. */
export async function stopDescendants(graceMs = 10_000): Promise<void> {
  const pids = descendants();
  signal(pids, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (pids.some(alive) && Date.now() < deadline) await Bun.sleep(50);
  signal(pids.filter(alive), "SIGKILL");
}

const SETPRIV = "/usr/bin/setpriv";

/**
 * `cmd` run so that the kernel sends it SIGTERM when this process dies, even by SIGKILL, which no
 * handler sees (util-linux's `setpriv --pdeathsig`, which then execs `cmd`: same pid); `cmd` as is
 * where setpriv is missing.
 */
export function diesWithMe(cmd: string[]): string[] {
  return existsSync(SETPRIV) ? [SETPRIV, "--pdeathsig", "SIGTERM", "--", ...cmd] : cmd;
}

let installed = false;

/**
 * Stops the descendants on SIGINT, SIGTERM and SIGHUP, after `first` (an orderly stop of the
 * script's own), then exits 128 + the signal's number; kills what is left at any exit.
 */
export function stopChildrenWithMe(opts: { graceMs?: number; first?: () => Promise<void> } = {}): void {
  if (installed) return;
  installed = true;
  let stopping = false;
  for (const [name, number] of Object.entries(SIGNALS))
    process.on(name, () => {
      if (stopping) return;
      stopping = true;
      void (opts.first?.() ?? Promise.resolve())
        .catch(() => undefined)
        .then(() => stopDescendants(opts.graceMs))
        .finally(() => process.exit(128 + number));
    });
  process.on("exit", () => signal(descendants(), "SIGKILL"));
}
