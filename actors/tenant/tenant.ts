import { isOutOfFiles, Unavailable } from "../../src/errors.ts";
import { revenueFigures } from "../../src/memory/revenue.ts";
import type { Change } from "../../src/models/change.ts";
import type { TenantStorage } from "../../src/ports.ts";
import type { TenantProtocol } from "../../src/protocols/tenant-protocol.ts";
import { afterCommits } from "../../src/runtime/after-commits.ts";
import type { Clock, TimerHandle } from "../../src/runtime/clock.ts";
import { later } from "../../src/runtime/later.ts";
import type { Behaviour } from "../../src/runtime/protocol.ts";
import { compactIfPending } from "../../src/vault/compact.ts";
import type { DiskSpace } from "../../src/vault/disk-space.ts";
import { storageFaultSync } from "../../src/vault/storage-faults.ts";
import { tenantDir } from "../../src/vault/tenant-paths.ts";
import type { TenantVault } from "../../src/vault/tenant-vault.ts";
import { TenantErasure } from "./erase/erase.ts";
import { entryHistory } from "./history/history.ts";
import { TenantIngest } from "./ingest/ingest.ts";
import { TenantMemory } from "./memory/memory.ts";
import { outboundHandlers } from "./outbound/handlers.ts";
import { TenantTransfer } from "./transfer/transfer.ts";
import { discardUnfinishedImport } from "./transfer/vault-transfer.ts";

export interface TenantDeps {
  dataDir: string;
  /** Opens this tenant's vault and seals its imports (src/ports.ts; cluster mode logs both). */
  storage: TenantStorage;
  clock: Clock;
  dims: number;
  /** Whether a descriptor can be spared to open this tenant (see src/runtime/open-files.ts). */
  roomToOpen?: () => boolean;
  /** Sends a message to this same actor later (the index flush after a burst of writes). */
  tellSelf: (msg: { type: "index.flush"; all?: boolean }) => void;
  /** Receives each write's changes once committed (src/memory/change-feed.ts). */
  onCommitted?: (changes: Change[]) => void;
  /** The vault's size ceiling in bytes (MEMORY_RUNTIME_VAULT_MAX_MB); unlimited when absent. */
  maxBytes?: number;
  /** The data directory's free space and its reserve (MEMORY_RUNTIME_DISK_RESERVE_MB). */
  disk?: DiskSpace;
}

/** Graph insertion starts after a short lull in writes; until then new vectors are searched exactly. */
const INDEX_FLUSH_DELAY_MS = 100;
/** One flush message inserts this many vectors (~20–40 ms), so other messages wait little between chunks. */
const INDEX_FLUSH_CHUNK = 96;

/** Seconds a caller should wait before retrying when no file descriptor is free. */
const OUT_OF_FILES_RETRY_S = 2;

/**
 * Opens the vault and indexes; running out of descriptors is a 503 to retry, a full disk (an open
 * writes: a migration, a recount) a 507, neither a crash.
 */
function openTenant(tenantId: string, deps: TenantDeps): { vault: TenantVault; memory: TenantMemory } {
  if (deps.roomToOpen && !deps.roomToOpen()) throw outOfFiles();
  let vault: TenantVault | undefined;
  try {
    const dir = tenantDir(deps.dataDir, tenantId);
    // An import the process did not live to finish is dropped: an import is all or nothing.
    discardUnfinishedImport(dir);
    vault = deps.storage.openVault(tenantId, dir, {
      onCommitted: deps.onCommitted,
      now: () => deps.clock.now(),
      maxBytes: deps.maxBytes,
      disk: deps.disk,
    });
    return { vault, memory: new TenantMemory({ tenantId, vault, clock: deps.clock, dims: deps.dims }) };
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

/** The tenant actor: sole owner of one tenant's vault and indexes, so the tenant's writes never race. */
/** Starts the tenant actor: an erasure's pending compaction first (the vault is closed then). */
export async function startTenant(tenantId: string, deps: TenantDeps): Promise<Behaviour<TenantProtocol>> {
  // A compaction writes a copy of the vault: on a full disk it fails (507) and is tried at the next start.
  await compactIfPending(tenantDir(deps.dataDir, tenantId)).catch((error) => {
    throw storageFaultSync(error);
  });
  return tenantBehaviour(tenantId, deps);
}

export function tenantBehaviour(tenantId: string, deps: TenantDeps): Behaviour<TenantProtocol> {
  const { vault, memory } = openTenant(tenantId, deps);
  const ingest = new TenantIngest(tenantId, vault, memory, deps.clock);
  const erasure = new TenantErasure(vault, memory, deps.clock);
  const transfer = new TenantTransfer(vault, deps.clock, () => deps.storage.sealImport(tenantId, vault));
  let flushTimer: TimerHandle | undefined;
  /**
   * Debounced: every write pushes the next flush back, so a burst of writes never waits on graph
   * insertion; the flush runs in the first lull, chunk by chunk, yielding to messages in between.
   */
  const scheduleFlush = (delayMs = INDEX_FLUSH_DELAY_MS) => {
    flushTimer?.cancel();
    flushTimer = deps.clock.setTimeout(() => {
      flushTimer = undefined;
      deps.tellSelf({ type: "index.flush" });
    }, delayMs);
  };
  // Vectors saved while still pending (or committed after the last save) go into the graph in the first lull.
  if (memory.index.pending > 0) scheduleFlush();
  // While an import runs, only the import and what reads no entry are answered (src/tenants/export-import.ts).
  return transfer.guarded({
    // Replies read from pending writes (read-your-writes, idempotent replays, duplicates) wait for their commit.
    handlers: afterCommits(vault, {
      "tenant.init": () => undefined,
      "tenant.health": () => ({
        vault: { present: true, entries: vault.entryCount() },
        index: { vectors: memory.index.size, pending: memory.index.pending },
        dead_letters: vault.deadLetterCount(),
        connectors: vault.connectorStatuses(),
      }),
      "metrics.revenue": ({ from, to }) => {
        const inWindow = (function* () {
          for (const stored of vault.scanValid(from, to)) yield stored.entry;
        })();
        return revenueFigures(inWindow, (id) => vault.get(id)?.entry);
      },
      "tenant.stats": ({ fromDay, toDay }) => ({
        entries_per_category: vault.entriesPerCategory(),
        dead_letters: vault.deadLetterCount(),
        writes_per_day: vault.writesPerDay(fromDay, toDay),
      }),
      "changes.since": ({ after, limit }) => ({
        changes: vault.changesSince(after, limit),
        last: vault.lastChangeSeq(),
      }),
      "entry.retract": ({ category, id, by }) => {
        const written = memory.retract(category, id, by);
        return later(written.committed.then(() => written.entry));
      },
      "entry.history": ({ category, id }) => entryHistory(vault, category, id),
      "memory.erase": ({ request, by }) => {
        const { report, committed } = erasure.erase(request, by);
        return later(committed.then(() => report));
      },
      "entry.createMany": (msg) => {
        const written = memory.writer.createMany(msg);
        if (written.status === 201) scheduleFlush();
        return later(written.committed.then(() => ({ status: written.status, ...written.reply })));
      },
      "entry.create": (msg) => {
        const written = memory.create(msg);
        if (written.status === 201) scheduleFlush();
        // Group commit: the mailbox moves on; this reply waits for its own commit.
        return later(written.committed.then(() => ({ status: written.status, entry: written.entry })));
      },
      "entry.get": (msg) => memory.get(msg.category, msg.id, msg.includeEmbedding),
      "entry.list": (msg) => memory.list(msg),
      "memory.search": (msg) => ({ results: memory.search(msg) }),
      "index.flush": ({ all }) => {
        const left = memory.flushIndex(all ? Number.POSITIVE_INFINITY : INDEX_FLUSH_CHUNK);
        if (left > 0 && !flushTimer) scheduleFlush(0);
        return undefined;
      },
      "webhook.ingest": ({ delivery }) => {
        const { summary, committed } = ingest.ingest(delivery);
        if (summary.entries.length > 0) scheduleFlush();
        return later(committed.then(() => summary));
      },
      "webhook.seen": ({ source, eventId }) => ingest.seen(source, eventId),
      "deadletter.list": ({ status, limit }) => ingest.listDeadLetters(status, limit),
      "deadletter.get": ({ eventId, source }) => ingest.deadLetterOf(eventId, source),
      "deadletter.resolve": ({ eventId, source, item }) => {
        const { reply, committed } = ingest.resolve(eventId, source, item);
        return later(committed.then(() => reply));
      },
      "connector.state.get": ({ key }) => vault.connectorState.get(key),
      "connector.state.put": ({ key, value }) =>
        later(vault.write({ entries: [], created: [], state: [[key, value]] }).then(() => undefined)),
      ...outboundHandlers({ vault, memory, ingest }),
      ...transfer.handlers(),
    }),
    stop: async () => {
      flushTimer?.cancel();
      transfer.close();
      try {
        // Saving the indexes can fail (a full disk): they are rebuilt from the vault on the next open.
        memory.close();
      } finally {
        await vault.close();
      }
    },
  });
}
