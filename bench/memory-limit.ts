/**
 * `BENCH_SERVICE_MEMORY_LIMIT_MB=N`: the service processes of a scale run are held in a memory
 * cgroup of that limit, as a container's memory limit holds them. A cgroup counts the page cache
 * its processes fault in (the vault's LMDB map among it) but reclaims it under the limit before it
 * kills anything; whether a run finishes under a limit, at what speed, and with how many OOM kills
 * is the measured answer to "does VmRSS's file part count against a container?" (docs/performance.md).
 *
 * cgroup v1 (the memory controller mounted at /sys/fs/cgroup/memory) or v2 (/sys/fs/cgroup with
 * `memory` among its controllers); needs the rights to create a cgroup (root in CI and here).
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Each hierarchy's file names for the same few facts. */
interface Layout {
  root: string;
  limit: string;
  peak: string;
  events: string;
  /** memory.stat keys: page cache, anonymous memory, mapped file pages. */
  stat: { cache: string; anon: string; mapped: string };
}

const V1: Layout = {
  root: "/sys/fs/cgroup/memory",
  limit: "memory.limit_in_bytes",
  peak: "memory.max_usage_in_bytes",
  events: "memory.oom_control",
  stat: { cache: "total_cache", anon: "total_rss", mapped: "total_mapped_file" },
};
const V2: Layout = {
  root: "/sys/fs/cgroup",
  limit: "memory.max",
  peak: "memory.peak",
  events: "memory.events",
  stat: { cache: "file", anon: "anon", mapped: "file_mapped" },
};

export interface MemoryLimitFigures {
  limit_mb: number;
  /** The cgroup's peak charge: page cache included. */
  peak_mb: number;
  oom_kills: number;
  /** At the moment of reading (the end of the run): page cache, anonymous, mapped file pages. */
  cache_mb: number;
  anon_mb: number;
  mapped_file_mb: number;
}

const MB = 1024 * 1024;

export class MemoryLimit {
  private constructor(
    private readonly layout: Layout,
    private readonly dir: string,
    readonly limitMb: number,
  ) {}

  /** The limit the environment asks for, its cgroup created; undefined when none is asked. */
  static fromEnv(env = process.env): MemoryLimit | undefined {
    const asked = env.BENCH_SERVICE_MEMORY_LIMIT_MB;
    if (!asked) return undefined;
    const limitMb = Number(asked);
    if (!Number.isInteger(limitMb) || limitMb < 64)
      throw new Error(`BENCH_SERVICE_MEMORY_LIMIT_MB=${asked}: a whole number of MB, at least 64`);
    const layout = layoutHere();
    const dir = join(layout.root, `mr-bench-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, layout.limit), String(limitMb * MB));
    return new MemoryLimit(layout, dir, limitMb);
  }

  /** Moves a process (all its threads) into the cgroup: what it faults in from now on is charged there. */
  admit(pid: number): void {
    writeFileSync(join(this.dir, "cgroup.procs"), String(pid));
  }

  figures(): MemoryLimitFigures {
    const stat = keyed(this.read("memory.stat"));
    const events = keyed(this.read(this.layout.events));
    const mb = (bytes: number | undefined) => Math.round((bytes ?? 0) / MB);
    return {
      limit_mb: this.limitMb,
      peak_mb: mb(Number(this.read(this.layout.peak))),
      oom_kills: events.oom_kill ?? 0,
      cache_mb: mb(stat[this.layout.stat.cache]),
      anon_mb: mb(stat[this.layout.stat.anon]),
      mapped_file_mb: mb(stat[this.layout.stat.mapped]),
    };
  }

  /** Removes the cgroup (its processes have exited: a cgroup with members cannot be removed). */
  remove(): void {
    try {
      rmdirSync(this.dir);
    } catch {
      // a member still exiting: the kernel keeps the empty cgroup until the next boot, harmless
    }
  }

  private read(file: string): string {
    return readFileSync(join(this.dir, file), "utf8");
  }
}

function layoutHere(): Layout {
  if (existsSync(join(V1.root, V1.limit))) return V1;
  const controllers = existsSync(join(V2.root, "cgroup.controllers"))
    ? readFileSync(join(V2.root, "cgroup.controllers"), "utf8")
    : "";
  if (controllers.split(/\s+/).includes("memory")) return V2;
  throw new Error("BENCH_SERVICE_MEMORY_LIMIT_MB: no memory cgroup controller on this machine");
}

/** `key value` lines (memory.stat, memory.events, memory.oom_control) as numbers by key. */
export function keyed(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split("\n")) {
    const [key, value] = line.trim().split(/\s+/);
    if (key && value !== undefined && /^\d+$/.test(value)) out[key] = Number(value);
  }
  return out;
}
