/**
 * Cluster mode's ports (src/ports/runtime-ports.ts), built before the runtime is composed (serve.ts) and reading
 * the node's parts through `state` as they come up (node-state.ts):
 * - tenant storage: each vault the tenant actor opens writes through to its partition's changelog
 *   (changelog.ts), and each import is logged whole (import-log.ts);
 * - placement: a tenant's vault opens here only while this node serves its partition; what runs on
 *   its own (connectors, outbound workers, the bridge) also waits for the system state;
 * - erasure: answered once the partition is compacted (erasure.ts);
 * - figures: asked of the node serving the tenant, through the router (remote-figures.ts);
 * - readiness: the node joined, caught up and serving its partitions (readiness.ts).
 */
import type { RuntimePorts } from "../ports/runtime-ports.ts";
import type { Clock } from "../runtime/clock.ts";
import { TenantVault, type WriteSet, type WriteThrough } from "../vault/tenant-vault.ts";
import { changelogWrites, encodeWriteSet } from "./changelog.ts";
import { compactAfterErasure, type PartitionCompactions } from "./erasure.ts";
import { importSeal } from "./import-log.ts";
import type { NodeState } from "./node-state.ts";
import { partitionOf } from "./partition.ts";
import { clusterReadiness } from "./readiness.ts";
import { figuresThroughRouter } from "./remote-figures.ts";

export function clusterPorts(state: NodeState, clock: Clock, log: (line: string) => void): RuntimePorts {
  const notServedHere = (tenantId: string) => state.notServedHere(tenantId);
  // Periodic snapshots count the records this node appends.
  const appended = (partition: number, seq: number) =>
    state.periodic.ifStarted((periodic) => periodic.appended(partition, seq), undefined);
  const appendWrite = async (tenantId: string, set: WriteSet) => {
    const record = { type: "write", tenant_id: tenantId, set: encodeWriteSet(set) };
    appended(partitionOf(tenantId), await state.node.get().appendWrite(tenantId, record));
  };
  const writeThrough = (tenantId: string): WriteThrough => {
    const logged = changelogWrites(tenantId, appendWrite, notServedHere);
    return (set, commit) => (state.leftCluster ? commit(set) : logged(set, commit));
  };
  return {
    storage: {
      openVault: (tenantId, dir, options) =>
        new TenantVault(dir, { ...options, writeThrough: writeThrough(tenantId) }),
      sealImport: importSeal({
        node: () => state.node.get(),
        imports: () => state.imports(),
        ledger: state.ledger,
        appended,
        log,
      }),
    },
    placement: {
      servedHere: (tenantId) => state.system.isStarted && state.owns(partitionOf(tenantId)),
      vaultRefusal: notServedHere,
    },
    erasure: compactAfterErasure(compactionsOf(state), () =>
      state.intake.ifStarted((intake) => intake.removalsSettled(), Promise.resolve()),
    ),
    // The dashboard (served by any node) reads each tenant's figures from the node serving it.
    figures: figuresThroughRouter((request) => state.router.get().handle(request), clock),
    // `GET /readyz`: joined, caught up, and serving the partitions this node should own.
    readiness: clusterReadiness(state),
  };
}

/** The partitions' compactions, done by the periodic snapshots once they run. */
function compactionsOf(state: NodeState): PartitionCompactions {
  return {
    compactNow: async (partition) => state.periodic.get().compactNow(partition),
    owes: (partition) => state.periodic.ifStarted((periodic) => periodic.owes(partition), false),
  };
}
