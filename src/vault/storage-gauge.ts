import type { RootDatabase } from "lmdb";
import { InsufficientStorage } from "../errors/domain-errors.ts";
import type { DiskSpace } from "./disk-space.ts";

/** How much an environment may hold: its own ceiling, and the disk's reserve. */
export interface StorageLimits {
  /** The environment's size ceiling in bytes; unlimited when absent. */
  maxBytes?: number;
  disk?: DiskSpace;
}

interface EnvInfo {
  lastPageNumber: number;
}

/** lmdb-js's native environment handle (not part of its typed API): `info()` is one cheap native call. */
function envInfo(root: RootDatabase): (() => EnvInfo) | undefined {
  const env = (root as unknown as { env?: { info?: () => EnvInfo } }).env;
  return typeof env?.info === "function" ? () => env.info!() : undefined;
}

/**
 * The size ceiling of one LMDB environment (a tenant vault, the system store). lmdb-js 3.5 grows
 * the map by itself (it starts at 128 KiB and doubles it whenever a transaction needs more pages)
 * and has no upper bound of its own, so the runtime keeps one: writes that add data are refused
 * once the environment's file has reached `maxBytes` (its high-water mark: pages up to the last
 * one in use; pages freed inside the file are reused first, and an erasure's compaction shrinks
 * it), or while the disk is down to its reserve (DiskSpace).
 *
 * The answer is worked out once per synchronous run (the file's size is one native call, about a
 * microsecond) and holds until the next microtask: every write of one message gets the same one,
 * so a message is admitted whole or refused whole. Writes admitted before a commit lands may carry
 * the file past the ceiling by at most what one group commit holds.
 */
export class StorageGauge {
  /** This run's answer: the refusal, or null for room; undefined until asked. */
  private verdict: InsufficientStorage | null | undefined;
  private readonly pageSize: number;
  private readonly info: () => EnvInfo;

  constructor(
    root: RootDatabase,
    readonly maxBytes: number,
    /** The data directory's free space, kept above its reserve (absent: not watched). */
    private readonly disk?: DiskSpace,
  ) {
    const stats = root.getStats() as { pageSize: number };
    this.pageSize = stats.pageSize;
    this.info = envInfo(root) ?? (() => root.getStats() as EnvInfo);
  }

  /** The environment's file size in use (bytes), as of the last commit. */
  usedBytes(): number {
    return (this.info().lastPageNumber + 1) * this.pageSize;
  }

  /** Throws InsufficientStorage, before anything is written, when there is no room for `what`. */
  assertRoom(what: string): void {
    if (this.verdict === undefined) {
      this.verdict = this.refusal(what);
      queueMicrotask(() => {
        this.verdict = undefined;
      });
    }
    if (this.verdict) throw this.verdict;
  }

  private refusal(what: string): InsufficientStorage | null {
    try {
      this.disk?.assertRoom();
    } catch (error) {
      if (error instanceof InsufficientStorage) return error;
      throw error;
    }
    if (!Number.isFinite(this.maxBytes) || this.usedBytes() < this.maxBytes) return null;
    return new InsufficientStorage(
      `${what} has reached its storage limit: nothing of this request was written; retry once space is freed`,
    );
  }
}
