import type { TenantVault } from "../../src/vault/tenant-vault.ts";
import type { ExtractBacklog } from "./conversations/extract-backlog.ts";
import type { TenantIngest } from "./ingest/ingest.ts";
import type { TenantMemory } from "./memory/memory.ts";
import type { SliceHandlers } from "./slice.ts";

/** The tenant's own figures: whether it opens, its health and the dashboard's counters. */
export function statusHandlers(
  vault: TenantVault,
  memory: TenantMemory,
  ingest: TenantIngest,
  extractBacklog?: ExtractBacklog,
): SliceHandlers<"tenant.init" | "tenant.health" | "tenant.stats"> {
  const { vectors } = memory.indexes;
  return {
    // Starting the actor opened the vault: nothing more to do.
    "tenant.init": () => undefined,
    "tenant.health": () => {
      const embedder = memory.backlog?.embedderState();
      const backlog = {
        pending_vectors: memory.backlog?.pending() ?? 0,
        ...upgradesOf(memory),
        ...(embedder && { embedder }),
      };
      return {
        vault: { present: true, entries: memory.entries.count() },
        index: { vectors: vectors.size, pending: vectors.pending, ...backlog },
        dead_letters: ingest.store.deadLetterCount(),
        connectors: ingest.store.connectorStatuses(),
        ...(extractBacklog && { extractor: extractBacklog.state() }),
      };
    },
    "tenant.stats": ({ fromDay, toDay }) => ({
      entries_per_category: vault.counters.perCategory(),
      // Open ones only: a replayed dead letter is kept, but it is no longer the operator's work.
      dead_letters: ingest.store.openDeadLetterCount(),
      writes_per_day: vault.counters.writesPerDay(fromDay, toDay),
    }),
  };
}

/** `pending_upgrades`, under an embedder whose writes' vectors are upgraded later (`tiered`) only. */
function upgradesOf(memory: TenantMemory): { pending_upgrades?: number } {
  const backlog = memory.backlog;
  return backlog?.upgrading ? { pending_upgrades: backlog.upgrades() } : {};
}
