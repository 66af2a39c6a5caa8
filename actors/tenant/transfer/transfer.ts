import { Conflict, Unavailable } from "../../../src/errors.ts";
import type { ExportChunk, ExportCounts } from "../../../src/models/tenant-export.ts";
import type { TenantProtocol } from "../../../src/protocols/tenant-protocol.ts";
import type { Clock } from "../../../src/runtime/clock.ts";
import { type Later, later } from "../../../src/runtime/later.ts";
import type { Behaviour } from "../../../src/runtime/protocol.ts";
import { storageFault } from "../../../src/vault/storage-faults.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import { skipImportedHistory } from "../outbound/handlers.ts";
import { type ExportSnapshot, VaultTransfer } from "./vault-transfer.ts";

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

type TransferHandlers = {
  [K in TransferMessages]: (
    msg: TenantProtocol[K]["msg"],
  ) => TenantProtocol[K]["reply"] | Later<TenantProtocol[K]["reply"]>;
};

/**
 * Export and import inside the tenant actor. An export reads bounded chunks of one snapshot, one
 * message each, so the mailbox is never held for long. An import writes batch by batch into an
 * empty vault; meanwhile every other message is refused (503, retry), since the vault's caches and
 * sequences know nothing of what is imported: the actor is restarted once the import has ended,
 * completed or dropped, and until then keeps refusing.
 */
export class TenantTransfer {
  private readonly transfer: VaultTransfer;
  private readonly exports = new Map<number, ExportSnapshot>();
  private nextSession = 1;
  /** The session of the import in progress; `ended` once it completed or was dropped. */
  private importing: number | "ended" | undefined;

  /** `seal`: the import's last step, before it is answered (the storage port's `sealImport`). */
  constructor(
    private readonly vault: TenantVault,
    private readonly clock: Clock,
    private readonly seal: () => Promise<void>,
  ) {
    this.transfer = new VaultTransfer(vault.root, vault.dir);
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

  handlers(): TransferHandlers {
    return {
      "export.open": () => this.openExport(),
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
        this.vault.assertRoom();
        return later(this.transfer.writeBatch(records).then(() => undefined, storageFault));
      },
      "import.finish": ({ session, records }) => {
        this.requireImport(session);
        this.vault.assertRoom();
        return later(
          this.transfer
            .finishImport(records)
            .catch(storageFault)
            .then(() => skipImportedHistory(this.vault.root, this.vault.lastChangeSeq()))
            // Still refusing other work: in cluster mode the vault goes to the changelog here.
            .then(() => this.seal())
            .then(() => {
              this.importing = "ended";
              return undefined;
            }),
        );
      },
      "import.abort": ({ session }) => {
        if (this.importing !== session) return undefined;
        this.importing = "ended";
        return later(this.transfer.abortImport().then(() => undefined));
      },
    };
  }

  /** Releases every export's read transaction (the vault is closing). */
  close(): void {
    for (const snapshot of this.exports.values()) snapshot.close();
    this.exports.clear();
  }

  private openExport(): { session: number; counts: ExportCounts } {
    if (this.exports.size >= MAX_EXPORTS)
      throw new Unavailable(`${MAX_EXPORTS} exports of this tenant are already running`, RETRY_S);
    const snapshot = this.transfer.snapshot();
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
    const v = this.vault;
    // Pending writes count: they are committing with positions the import would take.
    const empty =
      v.entryCount() === 0 &&
      v.pendingEntries().next().done === true &&
      v.allDeadLetters().length === 0 &&
      v.lastChangeSeq() === 0;
    if (!empty)
      throw new Conflict(
        "only an empty tenant can be imported into (no entries, dead letters or change log): create a new tenant",
      );
    this.transfer.beginImport(this.clock.now());
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
