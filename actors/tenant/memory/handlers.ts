import { decisionsNamed, revenueFigures } from "../../../src/memory/revenue.ts";
import { later } from "../../../src/runtime/later.ts";
import type { SliceHandlers } from "../slice.ts";
import type { TenantMemory } from "./memory.ts";

type MemoryMessages =
  | "entry.create"
  | "entry.createMany"
  | "entry.get"
  | "entry.list"
  | "entry.retract"
  | "memory.search"
  | "index.flush"
  | "embed.store"
  | "metrics.revenue";

/** The memory part of the tenant protocol: writes answer once committed (group commit). */
export function memoryHandlers(memory: TenantMemory): SliceHandlers<MemoryMessages> {
  const { writer, query, search, flush, entries } = memory;
  return {
    "entry.create": (msg) => {
      const { status, entry, similar, replayed, committed, merged_into, review } = memory.similar.create(msg);
      if (status === 201) flush.schedule();
      const reply = {
        status,
        entry,
        ...(similar ? { similar } : {}),
        ...(replayed ? { replayed } : {}),
        ...(merged_into ? { merged_into } : {}),
        ...(review ? { review } : {}),
      };
      // Group commit: the mailbox moves on; this reply waits for its own commit.
      return later(committed.then(() => reply));
    },
    "entry.createMany": (msg) => {
      const written = writer.createMany(msg);
      if (written.status === 201) flush.schedule();
      const replayed = written.replayed ? { replayed: written.replayed } : {};
      return later(written.committed.then(() => ({ status: written.status, ...written.reply, ...replayed })));
    },
    "entry.get": (msg) => query.get(msg.category, msg.id, msg.includeEmbedding),
    "entry.list": (msg) => query.list(msg),
    "entry.retract": ({ category, id, by, trust, overrides }) => {
      const retracting = trust === undefined ? undefined : { trust, overrides };
      const written = writer.retract(query.stored(category, id), category, by, retracting);
      return later(written.committed.then(() => written.entry));
    },
    "memory.search": (msg) => {
      const results = search.search(msg);
      const pending = memory.backlog?.pending() ?? 0;
      return pending > 0 ? { results, pending_vectors: pending } : { results };
    },
    "embed.store": ({ items, vectors }) => {
      const backlog = memory.backlog;
      return backlog ? later(backlog.store(items, vectors).then(() => undefined)) : undefined;
    },
    "index.flush": ({ all }) => {
      flush.run(all === true);
      return undefined;
    },
    "metrics.revenue": ({ from, to }) => {
      const inWindow = (function* () {
        for (const stored of entries.scanValid(from, to)) yield stored.entry;
      })();
      const outcomes = (function* () {
        for (const stored of entries.scanCategory("outcome")) yield stored.entry;
      })();
      return revenueFigures(inWindow, (id) => entries.get(id)?.entry, decisionsNamed(outcomes));
    },
  };
}
