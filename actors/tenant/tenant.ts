import type { ModelExtraction } from "../../src/conversations/model/model-extraction.ts";
import { modelSpaceKindOf } from "../../src/embedding/vector-tiers.ts";
import type { TenantProtocol } from "../../src/protocols/tenant-protocol.ts";
import { afterCommits } from "../../src/runtime/after-commits.ts";
import type { Behaviour, Handlers } from "../../src/runtime/protocol.ts";
import type { GraphBuilder } from "../../src/search/vector/graph-builder.ts";
import { compactIfPending } from "../../src/vault/compact.ts";
import { storageFaultSync } from "../../src/vault/storage-faults.ts";
import { tenantDir } from "../../src/vault/tenant-paths.ts";
import type { TenantVault } from "../../src/vault/tenant-vault.ts";
import { conversationHandlers } from "./conversations/conversations.ts";
import { type ExtractAsks, ExtractBacklog } from "./conversations/extract-backlog.ts";
import { modelEntryHandlers } from "./conversations/model-entries.ts";
import { entityHandlers } from "./entities/handlers.ts";
import { TenantErasure } from "./erase/erase.ts";
import { Tombstones } from "./erase/tombstones.ts";
import { historyHandlers } from "./history/history.ts";
import { ingestHandlers } from "./ingest/handlers.ts";
import { TenantIngest } from "./ingest/ingest.ts";
import { webhookOpsHandlers } from "./ingest/webhook-ops.ts";
import { memoryHandlers } from "./memory/handlers.ts";
import { type Background, TenantMemory } from "./memory/memory.ts";
import { mergeHandlers } from "./merges/handlers.ts";
import { openTenantVault, type VaultDeps } from "./open-vault.ts";
import { outboundHandlers, skipImportedHistory } from "./outbound/handlers.ts";
import { statusHandlers } from "./status.ts";
import { TenantTransfer } from "./transfer/transfer.ts";

export interface TenantDeps extends VaultDeps {
  dims: number;
  /** Sends a message to this same actor later (the index flush after a burst of writes). */
  tellSelf: (msg: { type: "index.flush"; all?: boolean }) => void;
  /** The runtime's background embedder and the way its vectors come back (none: no backlog). */
  background?: Background;
  /** The runtime's vector graph builder (none: each graph is built on its actor's thread). */
  graphBuilder?: GraphBuilder;
  /** The runtime's model extractor (`MEMORY_RUNTIME_EXTRACTOR=http`) and the way its answers come back. */
  extraction?: { scheduler: ModelExtraction; asks: ExtractAsks };
}

/** Starts the tenant actor: an erasure's pending compaction first (the vault is closed then). */
export async function startTenant(tenantId: string, deps: TenantDeps): Promise<Behaviour<TenantProtocol>> {
  // A compaction writes a copy of the vault: on a full disk it fails (507) and is tried at the next start.
  await compactIfPending(tenantDir(deps.dataDir, tenantId)).catch((error) => {
    throw storageFaultSync(error);
  });
  return tenantBehaviour(tenantId, deps);
}

/**
 * The tenant actor: sole owner of one tenant's vault, so the tenant's writes never race. It opens
 * the vault through the storage port and answers with its feature slices' handlers, each slice
 * reading its own tables: memory, ingest, erase, history, outbound, transfer.
 */
export function tenantBehaviour(tenantId: string, deps: TenantDeps): Behaviour<TenantProtocol> {
  return openTenantVault(tenantId, deps, (vault) => behaviourOf(tenantId, vault, deps));
}

function behaviourOf(tenantId: string, vault: TenantVault, deps: TenantDeps): Behaviour<TenantProtocol> {
  const { clock } = deps;
  const tellSelf = () => deps.tellSelf({ type: "index.flush" });
  const { background, dims, graphBuilder } = deps;
  const memory = new TenantMemory({ tenantId, vault, clock, dims, tellSelf, background, graphBuilder });
  const ingest = new TenantIngest({ tenantId, vault, memory, clock });
  const erasure = new TenantErasure({ vault, memory, ingest, clock });
  const tombstones = new Tombstones(vault);
  const extraction = deps.extraction;
  const extractBacklog =
    extraction && new ExtractBacklog(tenantId, vault, memory, extraction.scheduler, extraction.asks);
  const transfer = new TenantTransfer({
    vault,
    clock,
    entries: memory.entries,
    deadLetters: ingest.store,
    afterImport: () => skipImportedHistory(vault, vault.changes.last()),
    seal: () => deps.storage.sealImport(tenantId, vault),
    exportRefusal: () => ingest.held.exportRefusal(),
    embedder: modelSpaceKindOf(background?.embedding.signature),
  });
  const handlers: Handlers<TenantProtocol> = {
    ...statusHandlers(vault, memory, ingest, extractBacklog),
    ...memoryHandlers(memory),
    ...mergeHandlers(memory.merges),
    ...conversationHandlers(memory, clock, extractBacklog),
    ...modelEntryHandlers(memory, clock, extractBacklog),
    ...entityHandlers(memory),
    ...ingestHandlers(ingest, () => memory.flush.schedule()),
    ...webhookOpsHandlers({ ingest, vault, clock, onEntries: () => memory.flush.schedule() }),
    ...erasure.handlers(),
    ...historyHandlers({ entries: memory.entries, tombstones, changes: vault.changes }),
    ...outboundHandlers({ vault, query: memory.query, tombstones, deadLetters: ingest.store }),
    ...transfer.handlers(),
  };
  // While an import runs, only the import and what reads no entry are answered (transfer/transfer.ts).
  return transfer.guarded({
    // Replies read from pending writes (read-your-writes, idempotent replays, duplicates) wait for their commit.
    handlers: afterCommits(vault, handlers),
    stop: async () => {
      transfer.close();
      extractBacklog?.close();
      try {
        // Saving the indexes can fail (a full disk): they are rebuilt from the vault on the next open.
        memory.close();
      } finally {
        await vault.close();
      }
    },
  });
}
