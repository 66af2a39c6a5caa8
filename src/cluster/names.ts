/** The NATS objects of cluster mode (docs/cluster.md, "Vocabulary and names"). */
import { partitionLabel } from "./partition.ts";

export const NODES_BUCKET = "mr-nodes";
export const LEASES_BUCKET = "mr-leases";
export const LOG_STREAM = "MR_LOG";
export const LOG_SUBJECTS = "mr.log.>";

export const leaseKey = (partition: number) => `p${partitionLabel(partition)}`;
export const logSubject = (partition: number) => `mr.log.${partitionLabel(partition)}`;
export const httpSubject = (nodeId: string) => `mr.http.${nodeId}`;

export function partitionOfLeaseKey(key: string): number | undefined {
  const match = /^p(\d{2})$/.exec(key);
  return match ? Number(match[1]) : undefined;
}
