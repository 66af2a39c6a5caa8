import type { ModelSpaceKind } from "../../../src/embedding/vector-tiers.ts";
import { Conflict, Unavailable } from "../../../src/errors/domain-errors.ts";
import { type ScopeQuery, scopeFilterOf } from "../../../src/models/scope.ts";
import type { ExportChunk, ExportCounts } from "../../../src/models/tenant-export.ts";
import type { TenantProtocol } from "../../../src/protocols/tenant-protocol.ts";
import type { Clock } from "../../../src/runtime/clock.ts";
import { later } from "../../../src/runtime/later.ts";
import type { Behaviour } from "../../../src/runtime/protocol.ts";
import { storageFault } from "../../../src/vault/storage-faults.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import type { IngestStore } from "../ingest/ingest-store.ts";
import type { EntryStore } from "../memory/entry-store.ts";
import type { SliceHandlers } from "../slice.ts";
import { ExportSnapshot } from "./export-snapshot.ts";
import { ImportWriter } from "./import-writer.ts";
import { openTransferTables, type TransferTables } from "./transfer-tables.ts";

/** Exports of one tenant reading at once; each holds an LMDB read transaction open. */
const MAX_EXPORTS = 4;
/** Seconds a caller refused during an import should wait. */
const RETRY_S = 5;

/** What the tenant still answers while an import runs: the import itself, and what reads no entry. */
const DURING_IMPORT = new Set<string>([
  "tenant.init",
  "tenant.health",
  "index.flush",
  "import.begin",
  "import.batch",
  "import.finish",
  "import.abort",
  "export.close",
]);

type TransferMessages =
  | "export.open"
  | "export.read"
  | "export.close"
  | "import.begin"
  | "import.batch"
  | "import.finish"
  | "import.abort";

export interface TransferOptions {
  vault: TenantVault;
  clock: Clock;
  entries: EntryStore;
  deadLetters: IngestStore;
  /** After the last batch of an import, before the seal (outbound: subscriptions skip the imported log). */
  afterImport: () => Promise<unknown>;
  /** The import's last step, before it is answered (the storage port's `sealImport`). */
  seal: () => Promise<void>;
  /**
   * Why an export must wait, if it must: events held by a paused source are not exported (an
   * import would drop them, though their platforms were told they were kept).
   */
  exportRefusal?: () => string | undefined;
  /** The runtime's embedder when its vectors are in the sentence model's space (an export says their tier). */
  embedder?: ModelSpaceKind;
}

/**
 * Export and import inside the tenant actor. An export reads bounded chunks of one snapshot, one
 * message each, so the mailbox is never held for long. An import writes batch by batch into an
 * empty vault; meanwhile every other message is refused (503, retry), since the vault's caches and
 * sequences know nothing of what is imported: the actor is restarted once the import has ended,
 * completed or dropped, and until then keeps refusing.
 */
export class TenantTransfer {
  private readonly importer: ImportWriter;
  private tables: TransferTables | undefined;
  private readonly exports = new Map<number, ExportSnapshot>();
  private nextSession = 1;
  /** The session of the import in progress; `ended` once it completed or was dropped. */
  private importing: number | "ended" | undefined;

  constructor(private readonly opts: TransferOptions) {
    this.importer = new ImportWriter(opts.vault, () => this.transferTables());
  }

  /** The behaviour with each handler refusing its message while an import runs, except DURING_IMPORT's. */
  guarded(behaviour: Behaviour<TenantProtocol>): Behaviour<TenantProtocol> {
    const guarded: Record<string, (msg: never) => unknown> = {};
    for (const [type, handler] of Object.entries(
      behaviour.handlers as Record<string, (msg: never) => unknown>,
    )) {
      guarded[type] = DURING_IMPORT.has(type)
        ? handler
        : (msg: never) => {
            this.refuseDuringImport();
            return handler(msg);
          };
    }
    return { ...behaviour, handlers: guarded as Behaviour<TenantProtocol>["handlers"] };
  }

  handlers(): SliceHandlers<TransferMessages> {
    return {
      "export.open": ({ scope }) => this.openExport(scope),
      "export.read": ({ session, maxRecords, maxBytes }) => this.exportOf(session).read(maxRecords, maxBytes),
      "export.close": ({ session }) => {
        this.exports.get(session)?.close();
        this.exports.delete(session);
        return undefined;
      },
      "import.begin": () => this.beginImport(),
      "import.batch": ({ session, records }) => {
        this.requireImport(session);
        // An import is the largest write there is: each batch is held to the vault's size ceiling.
        this.opts.vault.assertRoom();
        return later(this.importer.writeBatch(records).then(() => undefined, storageFault));
      },
      "import.finish": ({ session, records }) => {
        this.requireImport(session);
        this.opts.vault.assertRoom();
        return later(
          this.importer
            .finish(records)
            .catch(storageFault)
            .then(() => this.opts.afterImport())
            // Still refusing other work: in cluster mode the vault goes to the changelog here.
            .then(() => this.opts.seal())
            .then(() => {
              this.importing = "ended";
              return undefined;
            }),
        );
      },
      "import.abort": ({ session }) => {
        if (this.importing !== session) return undefined;
        this.importing = "ended";
        return later(this.importer.abort().then(() => undefined));
      },
    };
  }

  /** No entries, dead letters or change log; pending writes count (they commit with positions the import would take). */
  private isEmpty(): boolean {
    const { entries, deadLetters, vault } = this.opts;
    return (
      entries.count() === 0 &&
      entries.pending().next().done === true &&
      deadLetters.allDeadLetters().length === 0 &&
      vault.changes.last() === 0
    );
  }

  /** The vault's tables as the export and the import see them: handles of their own, opened once. */
  private transferTables(): TransferTables {
    this.tables ??= openTransferTables((group) => this.opts.vault.uncachedTablesOf(group));
    return this.tables;
  }

  /** Releases every export's read transaction (the vault is closing). */
  close(): void {
    for (const snapshot of this.exports.values()) snapshot.close();
    this.exports.clear();
  }

  private openExport(scope?: ScopeQuery): { session: number; counts: ExportCounts } {
    const refused = this.opts.exportRefusal?.();
    if (refused) throw new Conflict(refused);
    if (this.exports.size >= MAX_EXPORTS)
      throw new Unavailable(`${MAX_EXPORTS} exports of this tenant are already running`, RETRY_S);
    const { vault, embedder } = this.opts;
    // A scoped export keeps the entries of that scope (read on the summary) and their vectors only.
    const filter = scope && scopeFilterOf(scope);
    const keep = filter && ((id: string) => vault.summary.inScopeId(id, filter));
    const snapshot = new ExportSnapshot(vault.readTransaction(), this.transferTables(), embedder, keep);
    const session = this.nextSession++;
    this.exports.set(session, snapshot);
    return { session, counts: snapshot.counts() };
  }

  private exportOf(session: number): { read(maxRecords: number, maxBytes: number): ExportChunk } {
    const snapshot = this.exports.get(session);
    if (!snapshot)
      throw new Unavailable("the export was interrupted (the tenant was restarted): start it again", RETRY_S);
    return snapshot;
  }

  private beginImport(): { session: number } {
    this.refuseDuringImport("an import into this tenant is already running");
    if (!this.isEmpty())
      throw new Conflict(
        "only an empty tenant can be imported into (no entries, dead letters or change log): create a new tenant",
      );
    this.importer.begin(this.opts.clock.now());
    const session = this.nextSession++;
    this.importing = session;
    return { session };
  }

  private requireImport(session: number): void {
    if (this.importing !== session)
      throw new Unavailable(
        "the import was interrupted (the tenant was restarted) and nothing of it was kept: start it again",
        RETRY_S,
      );
  }

  /** While an import runs: 503 (retry), or a 409 `conflict` when given its message (a second import). */
  private refuseDuringImport(conflict?: string): void {
    if (this.importing === undefined) return;
    if (this.importing === "ended")
      throw new Unavailable("the tenant is restarting after an import: retry shortly", RETRY_S);
    if (conflict) throw new Conflict(conflict);
    throw new Unavailable("an import into this tenant is running: retry once it has ended", RETRY_S);
  }
}
