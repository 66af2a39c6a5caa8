/**
 * The partition changelog of tenant data (docs/cluster.md, "Where a tenant's data lives"): every
 * vault write set the owner commits is appended, fenced and under its epoch, to `mr.log.<NN>`
 * before the write resolves (so before any client sees it acknowledged). A write set is the
 * vault's complete, deterministic description of one transaction, so replaying the sets in order
 * on an empty vault rebuilds the same vault.
 *
 * The changelog is the vault's write-through (`VaultOptions.writeThrough`), wired in by cluster
 * mode's storage port when the tenant actor opens its vault (cluster-ports.ts): only the vaults
 * of this runtime's tenant actors are logged, each under the tenant id it was opened for.
 */
import type { WriteSet, WriteThrough } from "../vault/tenant-vault.ts";

export type AppendWrite = (tenantId: string, set: WriteSet) => Promise<unknown>;

/**
 * Routes every write of the tenant's vault through `append` after its local commit: the write
 * resolves once both landed, and rejects (the caller's answer is an error, nothing acknowledged)
 * when the append is refused. A node that does not serve the tenant's partition is refused before
 * anything is committed locally (`refusal`), so no stray write (a connector, a late request)
 * pollutes its vault. The transaction time is fixed before either, so the replay writes the same
 * changes.
 */
export function changelogWrites(
  tenantId: string,
  append: AppendWrite,
  refusal: (tenantId: string) => Error | undefined,
): WriteThrough {
  return (set, commit) => {
    const refused = refusal(tenantId);
    if (refused) return Promise.reject(refused);
    const fixed: WriteSet = set.at === undefined ? { ...set, at: Date.now() } : set;
    return commit(fixed).then(async () => {
      await append(tenantId, fixed);
    });
  };
}

/** JSON with typed arrays kept (vectors are Float32Arrays). */
export function encodeWriteSet(set: WriteSet): unknown {
  return JSON.parse(
    JSON.stringify(set, (_key, value) =>
      value instanceof Float32Array
        ? { $f32: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64") }
        : value,
    ),
  );
}

export function decodeWriteSet(encoded: unknown): WriteSet {
  return JSON.parse(JSON.stringify(encoded), (_key, value) => {
    if (value && typeof value === "object" && typeof value.$f32 === "string") {
      const bytes = Buffer.from(value.$f32, "base64");
      return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    }
    return value;
  }) as WriteSet;
}
