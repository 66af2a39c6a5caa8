import { storageFault } from "../storage-faults.ts";
import type { StorageGauge } from "../storage-gauge.ts";

/**
 * The system store's size ceiling, as its slices check it before a write that grows the store.
 * Past the ceiling, tenants and roles are refused (507); the audit logs, which are bounded, and
 * changes that free space or stop a tenant (status, deletion) are not.
 */
export class SystemRoom {
  /** False once a replica checks the ceiling where commands are submitted (leaveToSubmitter). */
  private mutatorsCheck = true;

  constructor(private readonly gauge: StorageGauge) {}

  /** Throws InsufficientStorage when the system store is at its size ceiling. */
  assert(): void {
    this.gauge.assertRoom("the system store");
  }

  /**
   * Cluster mode: the ceiling is checked by the node submitting a command, before it is published;
   * applying a command every node accepted must not depend on this node's own fill level, or the
   * replicas would diverge (a refused command is still marked applied).
   */
  leaveToSubmitter(): void {
    this.mutatorsCheck = false;
  }

  /** What a mutator calls before it writes. */
  check(): void {
    if (this.mutatorsCheck) this.assert();
  }
}

/**
 * The commit of the puts just issued (every put of a turn resolves with the same commit, so the
 * last one's promise stands for all): a storage fault is a 507.
 */
export function committed(last: Promise<unknown>): Promise<void> {
  return last.then(() => undefined, storageFault);
}
