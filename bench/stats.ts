import { readFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";

/** The median of `values` (the mean of the middle two for an even count); NaN when empty. */
export function median(values: number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function round(value: number, digits = 3): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

export const seconds = (fromMs: number) => round((performance.now() - fromMs) / 1000, 3);

/** A field of /proc/<pid>/status in MiB (kB in the file); undefined when the process is gone. */
export function procStatusMb(pid: number | "self", field = "VmRSS"): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = status.match(new RegExp(`^${field}:\\s+(\\d+)`, "m"))?.[1];
    return kb === undefined ? undefined : round(Number(kb) / 1024, 1);
  } catch {
    return undefined;
  }
}

/** MemAvailable of /proc/meminfo in MiB (what the kernel could still hand out). */
export function availableMb(): number {
  try {
    const kb = readFileSync("/proc/meminfo", "utf8").match(/^MemAvailable:\s+(\d+)/m)?.[1];
    return kb === undefined ? Number.POSITIVE_INFINITY : Number(kb) / 1024;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** The 1, 5 and 15 minute load averages (other work on the machine skews every figure). */
export function loadAverage(): number[] {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).map(Number);
  } catch {
    return [];
  }
}

/** What the figures were measured on (the load generator shares these cores with the service). */
export function machine() {
  let os = "unknown";
  try {
    os = readFileSync("/etc/os-release", "utf8").match(/^PRETTY_NAME="?([^"\n]*)/m)?.[1] ?? os;
  } catch {
    // not Linux
  }
  return {
    cores: navigator.hardwareConcurrency,
    cpu: cpus()[0]?.model ?? "unknown",
    memory_gib: round(totalmem() / 2 ** 30, 1),
    os,
    bun: Bun.version,
    load_average_at_start: loadAverage(),
  };
}
