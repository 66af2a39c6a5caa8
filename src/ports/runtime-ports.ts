/**
 * The runtime's ports (ARCHITECTURE, "Ports, not patches"): the few things a single node does on
 * its own and cluster mode does differently. `composeRuntime` takes them as options and hands
 * them to what uses them when it starts; a port not given is the single-node default below.
 * Nothing replaces them after the start: cluster mode builds its implementations first
 * (src/cluster/cluster-ports.ts) and passes them in.
 *
 * Imported by src/ and actors/ alike, so it depends on nothing above the vault, the models and
 * the actor protocols' types.
 */
import type { EraseReport } from "../models/erase.ts";
import type { ReadinessCheck } from "../models/probes.ts";
import type { RevenueReport, Window } from "../models/revenue.ts";
import type { DayRange } from "../models/tenant-stats.ts";
import type { TenantStats } from "../protocols/tenant-protocol.ts";
import { TenantVault, type VaultOptions } from "../vault/tenant-vault.ts";

/** Tenant storage: how a tenant's vault is opened (with what observes its writes) and an import sealed. */
export interface TenantStorage {
  /**
   * Opens the vault of `tenantId` in `dir`; the tenant actor calls it when it starts. Whatever
   * must see each committed write set of this tenant is wired in here (`VaultOptions.writeThrough`):
   * cluster mode appends it to the partition changelog.
   */
  openVault(tenantId: string, dir: string, options: VaultOptions): TenantVault;
  /**
   * The last step of an import into `tenantId`, once the vault holds all of it and before it is
   * answered, while the tenant actor still refuses every other message (the vault is quiescent).
   * A rejection fails the import, which is then dropped whole. Cluster mode logs the imported vault.
   */
  sealImport(tenantId: string, vault: TenantVault): Promise<void>;
}

/** Placement: which tenants this runtime serves, and why not the others. */
export interface Placement {
  /** Whether what runs on its own for the tenant (connectors, outbound worker, bridge) runs here. */
  servedHere(tenantId: string): boolean;
  /**
   * Why the tenant's vault must not be opened here (its actor refuses to start with this error and
   * a creation opens none), or undefined when it may.
   */
  vaultRefusal(tenantId: string): Error | undefined;
}

/** What runs after an erasure, before it is answered (cluster mode: the partition's compaction). */
export interface ErasureFollowUps {
  /** After entries of the tenant were erased (or a dry run answered) and its vault compacted. */
  afterErase(tenantId: string, report: EraseReport): Promise<void>;
  /** After the tenant was deleted and the deletion audited. */
  afterDelete(tenantId: string): Promise<void>;
}

/** One tenant's dashboard figures, asked on behalf of the dashboard's `caller` (its credential). */
export interface FiguresRequest {
  tenantId: string;
  days: DayRange;
  window: Window;
  caller: Request;
}

export interface TenantFigures {
  stats: TenantStats;
  revenue: RevenueReport;
}

/**
 * Tenant figures: how the dashboard reads a tenant's counts and revenue. Rejects with Unavailable
 * when they cannot be had for now (the row then says so).
 */
export type FiguresReader = (request: FiguresRequest) => Promise<TenantFigures>;

/**
 * Readiness beyond the runtime's own checks (`GET /readyz`): cluster mode's node has joined, caught
 * up and serves the partitions it should own (src/cluster/readiness.ts). Read at each probe.
 */
export type ReadinessProbe = () => ReadinessCheck;

export interface RuntimePorts {
  storage: TenantStorage;
  placement: Placement;
  erasure: ErasureFollowUps;
  /**
   * Default: the local tenant actor answers (`localFigures`, src/operator-metrics/service.ts, the
   * service of the routes that read the same figures).
   */
  figures?: FiguresReader;
  /** Default: none (a single node is ready once its store is open and it is not stopping). */
  readiness?: ReadinessProbe;
}

/** A single node: the vault as it is, nothing to seal. */
export const singleNodeStorage: TenantStorage = {
  openVault: (_tenantId, dir, options) => new TenantVault(dir, options),
  sealImport: async () => undefined,
};

/** A single node serves every tenant. */
export const servedEverywhere: Placement = {
  servedHere: () => true,
  vaultRefusal: () => undefined,
};

/** A single node: an erasure's answer already waits for its vault's compaction; nothing follows. */
export const nothingAfterErasure: ErasureFollowUps = {
  afterErase: async () => undefined,
  afterDelete: async () => undefined,
};

/** The ports given, the single-node defaults for the others. */
export function withDefaults(given: Partial<RuntimePorts> = {}): RuntimePorts {
  return {
    storage: given.storage ?? singleNodeStorage,
    placement: given.placement ?? servedEverywhere,
    erasure: given.erasure ?? nothingAfterErasure,
    figures: given.figures,
    readiness: given.readiness,
  };
}
