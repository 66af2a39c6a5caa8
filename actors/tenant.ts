import type { TenantProtocol } from "../src/models/tenant-protocol.ts";
import type { Clock, TimerHandle } from "../src/runtime/clock.ts";
import { later } from "../src/runtime/later.ts";
import type { Behaviour } from "../src/runtime/protocol.ts";
import { tenantDir } from "../src/vault/tenant-paths.ts";
import { TenantVault } from "../src/vault/tenant-vault.ts";
import { TenantIngest } from "./tenant-ingest.ts";
import { TenantMemory } from "./tenant-memory.ts";

export interface TenantDeps {
  dataDir: string;
  clock: Clock;
  dims: number;
  /** Sends a message to this same actor later (the index flush after a burst of writes). */
  tellSelf: (msg: { type: "index.flush"; all?: boolean }) => void;
}

/** Graph insertion starts after a short lull in writes; until then new vectors are searched exactly. */
const INDEX_FLUSH_DELAY_MS = 100;
/** One flush message inserts this many vectors (~20–40 ms), so other messages wait little between chunks. */
const INDEX_FLUSH_CHUNK = 96;

/** The tenant actor: sole owner of one tenant's vault and indexes, so the tenant's writes never race. */
export function tenantBehaviour(tenantId: string, deps: TenantDeps): Behaviour<TenantProtocol> {
  const vault = new TenantVault(tenantDir(deps.dataDir, tenantId));
  const memory = new TenantMemory({ tenantId, vault, clock: deps.clock, dims: deps.dims });
  const ingest = new TenantIngest(tenantId, vault, memory, deps.clock);
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
  return {
    handlers: {
      "tenant.init": () => undefined,
      "tenant.health": () => ({
        vault: { present: true, entries: vault.entryCount() },
        index: { vectors: memory.index.size, pending: memory.index.pending },
        dead_letters: vault.deadLetterCount(),
        connectors: vault.connectorStatuses(),
      }),
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
    },
    stop: async () => {
      flushTimer?.cancel();
      memory.close();
      await vault.close();
    },
  };
}
