/**
 * The last step of a tenant import, once the vault holds all of it and before the import is
 * answered, while the tenant actor still refuses every other message (so the vault is quiescent):
 * nothing on a single node; cluster mode records the imported vault in the partition changelog
 * there (src/cluster/import-log.ts). A rejection fails the import, which is then dropped whole, as
 * any failed import is.
 *
 * A hook on the module rather than a dependency of the actor, as the changelog's hook on
 * `TenantVault.prototype.write` (src/cluster/changelog.ts): the vault and its transfer are built
 * deep inside the tenant actor, and single-node code stays untouched.
 */
import type { TenantVault } from "./tenant-vault.ts";

export type ImportSeal = (vault: TenantVault) => Promise<void>;

let installed: ImportSeal | undefined;

/** Installs the seal; answers the function that removes it. */
export function installImportSeal(seal: ImportSeal): () => void {
  installed = seal;
  return () => {
    if (installed === seal) installed = undefined;
  };
}

export function sealImport(vault: TenantVault): Promise<void> {
  return installed ? installed(vault) : Promise.resolve();
}
