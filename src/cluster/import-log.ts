/**
 * Tenant imports in cluster mode (docs/cluster.md, "Tenant imports"). An import writes the vault in
 * batches of its own, not through write sets, so it is logged whole once it is complete locally,
 * as the storage port's import seal (src/ports/runtime-ports.ts `sealImport`, run while the tenant actor still
 * refuses other work): the owner copies the vault through a read transaction, uploads the copy to
 * the object store `mr-imports`, then appends a fenced `import` record naming the object to the
 * partition's changelog. Replay replaces the tenant's vault with the object at that record; later
 * write records apply on top.
 *
 * The import is answered only once the record landed. Nothing of a failed import is kept (it is
 * dropped locally and answered 503 with Retry-After); a refused or unanswered append also drops
 * the partition, as for any write (node.ts).
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Unavailable } from "../errors/domain-errors.ts";
import type { TenantStorage } from "../ports/runtime-ports.ts";
import type { TenantVault } from "../vault/tenant-vault.ts";
import { Fenced } from "./fence.ts";
import type { ImportLedger } from "./import-ledger.ts";
import { type ImportObjects, importObjectName } from "./import-objects.ts";
import type { ClusterNode } from "./node.ts";
import { partitionOf } from "./partition.ts";

/** Seconds a client waits before retrying an import the object store did not take. */
const RETRY_S = 2;

export interface ImportLogDeps {
  /** The node, once joined (an import reaches a tenant only where its partition is served). */
  node(): ClusterNode;
  imports: () => Promise<ImportObjects>;
  ledger: ImportLedger;
  /** A record this node appended at `seq` (periodic snapshots count it). */
  appended(partition: number, seq: number): void;
  log: (line: string) => void;
}

/** The import seal of cluster mode's storage port: each import completed here is logged. */
export function importSeal(deps: ImportLogDeps): TenantStorage["sealImport"] {
  return (tenantId, vault) => logImport(deps, tenantId, vault);
}

async function logImport(deps: ImportLogDeps, tenantId: string, vault: TenantVault): Promise<void> {
  const partition = partitionOf(tenantId);
  const node = deps.node();
  const epoch = node.ownership.epochOf(partition);
  if (epoch === undefined) throw new Fenced(partition);
  const staging = mkdtempSync(join(tmpdir(), "mr-import-"));
  const started = performance.now();
  let object: string;
  let bytes: number;
  try {
    // Nothing writes the vault meanwhile (its actor refuses other work): this is the import.
    await vault.backup(staging, false);
    const copy = join(staging, "data.mdb");
    bytes = statSync(copy).size;
    object = importObjectName(partition, epoch, tenantId);
    await (await deps.imports()).upload(object, copy);
  } catch (error) {
    deps.log(`[cluster] partition ${partition}: import into ${tenantId} not stored: ${error}`);
    throw new Unavailable(
      "the import could not be stored in the cluster; nothing of it was kept: retry",
      RETRY_S,
    );
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  // The record goes under the epoch the object is named after (import-ledger.ts relies on it):
  // checked right before the append, which reads the epoch again in the same turn.
  if (node.ownership.epochOf(partition) !== epoch) throw new Fenced(partition);
  const seq = await node.appendRecord(partition, { type: "import", tenant_id: tenantId, object });
  deps.ledger.landedAt(partition, object, seq);
  deps.appended(partition, seq);
  deps.log(
    `[cluster] partition ${partition}: import into ${tenantId} logged at ${seq} (${bytes} bytes, ${Math.round(performance.now() - started)} ms to copy, upload and append)`,
  );
}

/**
 * After a periodic snapshot's purge: deletes the import objects the snapshot covers (the rule is
 * import-ledger.ts's). A failure only leaves objects for a later snapshot to delete.
 */
export async function deleteCoveredImports(
  deps: Pick<ImportLogDeps, "imports" | "ledger" | "log">,
  partition: number,
  snapshot: { seq: number; epoch: number },
): Promise<void> {
  try {
    const imports = await deps.imports();
    const deleted = await imports.deleteWhere((name) =>
      deps.ledger.covered(name, partition, snapshot.epoch, snapshot.seq),
    );
    deps.ledger.settled(partition, snapshot.seq);
    if (deleted > 0)
      deps.log(
        `[cluster] partition ${partition}: ${deleted} import objects covered by the snapshot at ${snapshot.seq} deleted`,
      );
  } catch (error) {
    deps.log(`[cluster] partition ${partition}: deleting covered import objects failed: ${error}`);
  }
}
