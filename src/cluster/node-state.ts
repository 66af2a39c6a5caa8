/**
 * What cluster mode shares between the runtime and its node: one object, created before both
 * (serve.ts `createClusterRuntime`), that the node fills and the runtime's ports read.
 *
 * It breaks the one circle of cluster mode. The runtime's ports (cluster-ports.ts) need the node:
 * its leases (what is served here), its log, its snapshots, its intake, its router. The node's
 * parts need the runtime: its tenant actors (to close a tenant before its partition is restored or
 * removed) and its app (to answer requests). So the runtime is composed first, with ports that read
 * this object, and `serveClusterNode` starts the node's parts in stages (node-stages.ts), each
 * recorded here once (node-part.ts: set once, never replaced); nothing of the runtime is reassigned. Until the node has joined, it serves nothing: every tenant's vault is
 * refused (503, moved) and nothing runs on its own.
 */
import { Fenced } from "./fence.ts";
import { ImportLedger } from "./import-ledger.ts";
import { ImportObjects } from "./import-objects.ts";
import type { Intake } from "./intake.ts";
import type { ClusterNode } from "./node.ts";
import { NodePart } from "./node-part.ts";
import { partitionOf } from "./partition.ts";
import type { PeriodicSnapshots } from "./periodic-snapshots.ts";
import type { ClusterRouter } from "./router.ts";
import type { SystemState } from "./system-state.ts";

export class NodeState {
  /** The node once it joined the cluster: its leases say which partitions are served here. */
  readonly node = new NodePart<ClusterNode>("joined the cluster");
  /** The replicated system state, once caught up (until then the local store may be behind). */
  readonly system = new NodePart<SystemState>("caught up on the system state");
  /** Snapshots and compactions of the partitions served here. */
  readonly periodic = new NodePart<PeriodicSnapshots>("started compacting partitions");
  /** The webhook intake of the partitions served here. */
  readonly intake = new NodePart<Intake>("started its webhook intake");
  /** The router in front of the app: answers here what is served here, forwards the rest. */
  readonly router = new NodePart<ClusterRouter>("started its router");
  /**
   * Set at a clean stop once the leases are released: the runtime then drains with its vaults
   * local only, as a single node's (they are removed right after, local-copies.ts), so what its
   * actors write as they stop is neither refused nor logged.
   */
  leftCluster = false;
  /** Import objects logged here and not yet covered by a snapshot (import-ledger.ts). */
  readonly ledger = new ImportLedger();
  private importObjects: Promise<ImportObjects> | undefined;

  owns(partition: number): boolean {
    return this.node.ifStarted((node) => node.ownership.owns(partition), false);
  }

  /** Why a tenant's vault is neither opened nor written here: its partition is served elsewhere. */
  notServedHere(tenantId: string): Error | undefined {
    const partition = partitionOf(tenantId);
    return this.owns(partition) ? undefined : new Fenced(partition);
  }

  /** The object store of imports, opened on first use (once the node joined). */
  imports(): Promise<ImportObjects> {
    this.importObjects ??= ImportObjects.open(this.node.get().nc);
    return this.importObjects;
  }
}
