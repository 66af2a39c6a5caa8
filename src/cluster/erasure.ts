/**
 * Erasure in cluster mode (docs/cluster.md, "Erasure in cluster mode"): erasing entries
 * (`POST /admin/tenants/{id}/erase`) and deleting a tenant (`DELETE /admin/tenants/{id}`) are
 * answered only once the partition's owner has compacted the partition (compaction.ts): a snapshot
 * without the erased data or the deleted tenant, the log below it and the older snapshots' files
 * overwritten and removed. As in single-node mode, where the erasure's answer waits
 * for the vault's compaction, the answer then means the data is gone, here from NATS as well.
 *
 * The erasure or deletion itself is committed first (in the changelog, in the system state): if
 * the compaction fails or the partition moves meanwhile, the answer is an error (503, retry), the
 * compaction stays owed and is done by this owner 10 s later or by the next owner at takeover. A
 * retried erasure finds nothing left to erase and waits for the owed compaction.
 */
import { Unavailable } from "../errors/domain-errors.ts";
import type { ErasureFollowUps } from "../ports/runtime-ports.ts";
import { partitionOf } from "./partition.ts";

/** The owner retries a failed compaction after 10 s: the client may retry then. */
const RETRY_AFTER_S = 10;

export interface PartitionCompactions {
  compactNow(partition: number): Promise<void>;
  owes(partition: number): boolean;
}

/**
 * What the erasure waits for before the compaction: the overwrites of webhook deliveries applied
 * here just before it (intake-removal.ts), whose bodies may carry the erased text.
 */
export type PendingRemovals = () => Promise<void>;

/**
 * Cluster mode's erasure port (src/ports/runtime-ports.ts): an erasure that removed anything (or whose
 * partition still owes a compaction) and every deletion are followed by the pending intake
 * removals, then the partition's compaction, before they are answered.
 */
export function compactAfterErasure(
  compactions: PartitionCompactions,
  pendingRemovals: PendingRemovals = async () => {},
): ErasureFollowUps {
  return {
    afterErase: async (tenantId, report) => {
      const partition = partitionOf(tenantId);
      const changed =
        report.erased.length > 0 ||
        report.dead_letters_removed > 0 ||
        report.idempotency_records_removed > 0 ||
        report.deliveries_removed > 0;
      if (!report.dry_run && (changed || compactions.owes(partition))) {
        await pendingRemovals();
        await compacted(compactions, partition);
      }
    },
    afterDelete: async (tenantId) => {
      await pendingRemovals();
      await compacted(compactions, partitionOf(tenantId));
    },
  };
}

/** The compaction, any failure a 503: what was erased or deleted is committed, its removal is owed. */
async function compacted(compactions: PartitionCompactions, partition: number): Promise<void> {
  try {
    await compactions.compactNow(partition);
  } catch (error) {
    if (error instanceof Unavailable) throw error;
    throw new Unavailable(
      "committed, but removing it from the cluster's storage failed; it is retried, retry to confirm",
      RETRY_AFTER_S,
    );
  }
}
