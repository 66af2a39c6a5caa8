/**
 * The first stage (compose.ts): what the runtime keeps and shares before any actor runs. Telemetry,
 * the per-tenant secrets, the CRM mapping, the data directory's disk, the system store (tenants,
 * roles, audit), each tenant's change feed, and the set of tenants being erased.
 */
import type { Config, Env } from "../config/config.ts";
import { CrmMappingHolder } from "../ingest/crm-mapping-holder.ts";
import { ChangeFeeds } from "../memory/change-feed.ts";
import type { Clock } from "../runtime/clock.ts";
import { openSecrets, type Secrets } from "../secrets/secrets.ts";
import { createTelemetry, type Telemetry } from "../telemetry/telemetry.ts";
import { ErasingTenants } from "../tenants/erase-tenant.ts";
import { DiskSpace } from "../vault/disk-space.ts";
import { SystemStore } from "../vault/system-store.ts";

export interface StoresOptions {
  config: Config;
  env: Env;
  clock: Clock;
  log: (line: string) => void;
  /** Default: built from `config.telemetry`. */
  telemetry?: Telemetry;
}

export interface Stores {
  config: Config;
  clock: Clock;
  log: (line: string) => void;
  telemetry: Telemetry;
  secrets: Secrets;
  crmMapping: CrmMappingHolder;
  disk: DiskSpace;
  store: SystemStore;
  changeFeeds: ChangeFeeds;
  /** Tenants being erased: their vaults are refused meanwhile (the tenant actors ask it). */
  erasing: ErasingTenants;
}

export function openStores({ config, env, clock, log, telemetry }: StoresOptions): Stores {
  // Every environment is held to its ceiling, and the data directory's disk to its reserve.
  const disk = new DiskSpace(config.dataDir, config.diskReserveBytes);
  return {
    config,
    clock,
    log,
    telemetry: telemetry ?? createTelemetry(config.telemetry, { log }),
    secrets: openSecrets(env, config.secretsFile),
    crmMapping: new CrmMappingHolder(config.crmMappingPath, config.crmMappingIsDefault),
    disk,
    store: new SystemStore(config.dataDir, config.auditLimit, { maxBytes: config.vaultMaxBytes, disk }),
    changeFeeds: new ChangeFeeds(),
    erasing: new ErasingTenants(),
  };
}
