/**
 * A cluster node's readiness (the readiness port, src/ports/runtime-ports.ts): ready once it has joined, its
 * replica of the system state has caught up, its router listens, and every partition the live
 * nodes' rendezvous gives it is claimed and restored here. A rolling restart that waits for this
 * before stopping the next node never leaves a partition without its owner for longer than a move.
 */
import type { ReadinessCheck } from "../models/probes.ts";
import type { ReadinessProbe } from "../ports/runtime-ports.ts";
import type { NodeState } from "./node-state.ts";
import { desiredOwner, PARTITIONS } from "./partition.ts";

/** Partitions named in a failed check at most (the rest are counted). */
const NAMED = 8;

export function clusterReadiness(state: NodeState): ReadinessProbe {
  return (): ReadinessCheck => {
    if (!state.node.isStarted || state.leftCluster)
      return failed("not a member of the cluster (joining or leaving)");
    if (!state.system.isStarted) return failed("the system state is catching up");
    if (!state.router.isStarted) return failed("the router does not listen yet");
    const node = state.node.get();
    const live = node.membership.live();
    if (!live.includes(node.nodeId)) return failed("this node's heartbeat is not live");
    const waiting: number[] = [];
    for (let partition = 0; partition < PARTITIONS; partition++) {
      if (desiredOwner(partition, live) === node.nodeId && !node.ownership.owns(partition))
        waiting.push(partition);
    }
    if (waiting.length === 0) return { ok: true };
    const named = waiting.slice(0, NAMED).join(", ");
    const more = waiting.length > NAMED ? ` and ${waiting.length - NAMED} more` : "";
    return failed(`partitions ${named}${more} are not served here yet (claiming or restoring)`);
  };
}

function failed(detail: string): ReadinessCheck {
  return { ok: false, detail };
}
