import { statfsSync } from "node:fs";
import { InsufficientStorage } from "../errors/domain-errors.ts";

/** How long a reading of the free space stands (a statfs call costs ~15 µs; writes come by thousands a second). */
const READ_EVERY_MS = 100;

type StatFs = (path: string) => { bavail: number | bigint; bsize: number | bigint };

/**
 * The free space of the data directory's filesystem, kept above a reserve: writes that add data
 * are refused (507) while less than `reserveBytes` is free, so LMDB itself never meets a full
 * disk. That matters beyond tidiness: lmdb-js 3.5.6 formats a failed page write into a 100-byte
 * buffer that long positions overflow, so a real ENOSPC can corrupt the process's heap. The
 * reserve also leaves room for what freeing space needs (an erasure's compaction copies the vault).
 */
export class DiskSpace {
  private free = Number.POSITIVE_INFINITY;
  private readAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly dir: string,
    readonly reserveBytes: number,
    private readonly now: () => number = Date.now,
    private readonly statfs: StatFs = statfsSync,
  ) {}

  /** Bytes this process may still write on the filesystem (as of at most READ_EVERY_MS ago). */
  freeBytes(): number {
    const now = this.now();
    if (now - this.readAt < READ_EVERY_MS) return this.free;
    this.readAt = now;
    try {
      const stats = this.statfs(this.dir);
      this.free = Number(stats.bavail) * Number(stats.bsize);
    } catch {
      // Unreadable (a filesystem without statfs): LMDB's own errors are the only guard left.
      this.free = Number.POSITIVE_INFINITY;
    }
    return this.free;
  }

  /** Throws InsufficientStorage, before anything is written, while the free space is under the reserve. */
  assertRoom(): void {
    if (this.reserveBytes <= 0 || this.freeBytes() >= this.reserveBytes) return;
    throw new InsufficientStorage(
      "the disk is nearly full: nothing of this request was written; retry once space is freed",
    );
  }
}
