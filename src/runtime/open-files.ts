import { readdirSync, readFileSync } from "node:fs";

/** Used when the limit cannot be read (not Linux): the usual default soft limit. */
const FALLBACK_LIMIT = 1024;
/**
 * Descriptors one open tenant holds at most, counted in /proc/<pid>/fd of a real server (checked by
 * test/open-files.test.ts): its LMDB data file twice (LMDB writes the meta pages through a second
 * descriptor) and its lock file; its vector rows (`.f16`, written with pwrite beside their mapping:
 * vector-row-space.ts); its saved vector graph, which usearch keeps open while it maps it
 * (vector-graph.ts; a tenant not reopened since its creation has none yet). The BM25 base and
 * journal, the vector meta file and an index save open their files only for the call. Passivation
 * closes all five, so only open tenants count. The one number the open-tenant bound derives from.
 */
export const FILES_PER_TENANT = 5;
/** Kept free for the process itself: sockets, the system store, index files while saving. */
const MIN_RESERVE = 32;
const MAX_RESERVE = 512;
/**
 * Descriptors that must stay free after a tenant opens. Bun crashes outright when it cannot accept
 * a connection for want of a descriptor, so no vault may take the last ones, whatever the bound.
 */
export const MIN_FREE_FILES = 8;
/** Above this, memory (not descriptors) bounds the open tenants first. */
const MAX_OPEN_TENANTS = 4096;

/** The process's soft limit on open files (Linux: /proc/self/limits), or a safe fallback. */
export function openFileLimit(limitsText = readLimits()): number {
  const line = limitsText.split("\n").find((l) => l.startsWith("Max open files"));
  const soft = line?.slice("Max open files".length).trim().split(/\s+/)[0];
  if (soft === "unlimited") return Number.MAX_SAFE_INTEGER;
  const n = Number(soft);
  return Number.isSafeInteger(n) && n > 0 ? n : FALLBACK_LIMIT;
}

/**
 * How many tenant vaults may be open at once under `limit` descriptors when `inUse` are open
 * already (at start: the runtime itself, the system store): a quarter of the limit (between 32
 * and 512) stays free for sockets and the rest; at least one tenant.
 */
export function maxOpenTenantsFor(limit: number, inUse = openFileCount() ?? 0): number {
  const reserve = Math.min(MAX_RESERVE, Math.max(MIN_RESERVE, Math.floor(limit / 4)));
  const fit = Math.floor((limit - inUse - reserve) / FILES_PER_TENANT);
  return Math.max(1, Math.min(MAX_OPEN_TENANTS, fit));
}

/** Descriptors this process has open now (Linux), or undefined where that cannot be read. */
export function openFileCount(): number | undefined {
  try {
    return readdirSync("/proc/self/fd").length;
  } catch {
    return undefined;
  }
}

/** Whether a tenant can be opened under `limit` and still leave MIN_FREE_FILES descriptors free. */
export function roomForTenant(limit: number, countOpen: () => number | undefined = openFileCount): boolean {
  const open = countOpen();
  return open === undefined || limit - open >= FILES_PER_TENANT + MIN_FREE_FILES;
}

function readLimits(): string {
  try {
    return readFileSync("/proc/self/limits", "utf8");
  } catch {
    return "";
  }
}
