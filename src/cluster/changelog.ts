/**
 * The partition changelog of tenant data (docs/cluster.md, "Where a tenant's data lives"): every
 * vault write set the owner commits is appended, fenced and under its epoch, to `mr.log.<NN>`
 * before the write resolves (so before any client sees it acknowledged). A write set is the
 * vault's complete, deterministic description of one transaction, so replaying the sets in order
 * on an empty vault rebuilds the same vault.
 *
 * The hook wraps `TenantVault.prototype.write` while cluster mode runs (the vault is constructed
 * deep inside the tenant actor; wrapping its one write method keeps single-node code untouched).
 */
import { basename } from "node:path";
import { TenantVault, type WriteSet } from "../vault/tenant-vault.ts";

/** The vault's own write, for replay (a replayed set must not be appended again). */
export const localWrite = TenantVault.prototype.write;

export type AppendWrite = (tenantId: string, set: WriteSet) => Promise<unknown>;

/**
 * Routes every vault write through `append` after its local commit: the write resolves once both
 * landed, and rejects (the caller's answer is an error, nothing acknowledged) when the append is
 * refused. A node that does not serve the tenant's partition is refused before anything is
 * committed locally (`refusal`), so no stray write (a connector, a late request) pollutes its
 * vault. The transaction time is fixed before either, so the replay writes the same changes.
 */
export function logVaultWrites(
  append: AppendWrite,
  refusal: (tenantId: string) => Error | undefined,
): () => void {
  TenantVault.prototype.write = function (this: TenantVault, set: WriteSet): Promise<void> {
    const tenantId = basename(this.dir);
    const refused = refusal(tenantId);
    if (refused) return Promise.reject(refused);
    const fixed: WriteSet = set.at === undefined ? { ...set, at: Date.now() } : set;
    return localWrite.call(this, fixed).then(async () => {
      await append(tenantId, fixed);
    });
  };
  return () => {
    TenantVault.prototype.write = localWrite;
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
