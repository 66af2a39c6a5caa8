import { isOutOfFiles, Unavailable } from "../../src/errors/domain-errors.ts";
import type { Change } from "../../src/models/change.ts";
import type { TenantStorage } from "../../src/ports/runtime-ports.ts";
import type { Clock } from "../../src/runtime/clock.ts";
import type { Telemetry } from "../../src/telemetry/telemetry.ts";
import type { DiskSpace } from "../../src/vault/disk-space.ts";
import { storageFaultSync } from "../../src/vault/storage-faults.ts";
import { tenantDir } from "../../src/vault/tenant-paths.ts";
import type { TenantVault } from "../../src/vault/tenant-vault.ts";
import { discardUnfinishedImport } from "./transfer/import-marker.ts";

/** Seconds a caller should wait before retrying when no file descriptor is free. */
const OUT_OF_FILES_RETRY_S = 2;

export interface VaultDeps {
  dataDir: string;
  /** Opens this tenant's vault and seals its imports (src/ports/runtime-ports.ts; cluster mode logs both). */
  storage: TenantStorage;
  clock: Clock;
  /** Whether a descriptor can be spared to open this tenant (see src/runtime/open-files.ts). */
  roomToOpen?: () => boolean;
  /** Receives each write's changes once committed (src/memory/change-feed.ts). */
  onCommitted?: (changes: Change[]) => void;
  /** The vault's size ceiling in bytes (MEMORY_RUNTIME_VAULT_MAX_MB); unlimited when absent. */
  maxBytes?: number;
  /** The data directory's free space and its reserve (MEMORY_RUNTIME_DISK_RESERVE_MB). */
  disk?: DiskSpace;
  /** Times each commit and its size (src/telemetry/). */
  telemetry?: Telemetry;
}

/**
 * Opens the tenant's vault through the storage port. An import the process did not live to finish
 * is dropped first (an import is all or nothing). Running out of descriptors is a 503 to retry, a
 * full disk (an open writes: a migration, a recount) a 507, neither a crash. `then` builds on the
 * vault (the slices open their indexes); should it fail, the vault is closed again.
 */
export function openTenantVault<T>(tenantId: string, deps: VaultDeps, then: (vault: TenantVault) => T): T {
  if (deps.roomToOpen && !deps.roomToOpen()) throw outOfFiles();
  let vault: TenantVault | undefined;
  try {
    const dir = tenantDir(deps.dataDir, tenantId);
    discardUnfinishedImport(dir);
    vault = deps.storage.openVault(tenantId, dir, {
      onCommitted: deps.onCommitted,
      now: () => deps.clock.now(),
      maxBytes: deps.maxBytes,
      disk: deps.disk,
      telemetry: deps.telemetry,
    });
    return then(vault);
  } catch (error) {
    void vault?.close();
    if (isOutOfFiles(error)) throw outOfFiles();
    throw storageFaultSync(error);
  }
}

function outOfFiles(): Unavailable {
  return new Unavailable(
    "no file descriptor is free to open this tenant; retry shortly",
    OUT_OF_FILES_RETRY_S,
  );
}
