/**
 * Tenants to partitions, partitions to nodes. Both are pure functions every node computes alike:
 * a partition is `fnv1a32(tenant) mod 64`, its desired owner the live node of highest rendezvous
 * score (docs/cluster.md, "Partitions" and "Ownership").
 */

/** Fixed for the life of a cluster: changing it would move every tenant. */
export const PARTITIONS = 64;

/** FNV-1a, 32 bits, over the UTF-8 bytes: stable across processes and versions. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

export function partitionOf(tenantId: string): number {
  return fnv1a32(tenantId) % PARTITIONS;
}

/**
 * murmur3's finaliser: FNV alone barely separates ids that differ in one trailing character
 * (`n1/7`, `n2/7`), which skews rendezvous scores; the finaliser spreads them.
 */
function mix32(hash: number): number {
  let h = hash;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

/** Rendezvous (highest random weight) hashing: a node leaving moves only the partitions it held. */
export function desiredOwner(partition: number, liveNodes: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const node of liveNodes) {
    const score = mix32(fnv1a32(`${node}/${partition}`));
    // Ties (vanishingly rare) break by id so every node picks the same one.
    if (score > bestScore || (score === bestScore && best !== undefined && node > best)) {
      best = node;
      bestScore = score;
    }
  }
  return best;
}

/** Two-digit partition label used in keys and subjects (`p07`, `mr.log.07`). */
export function partitionLabel(partition: number): string {
  return String(partition).padStart(2, "0");
}
