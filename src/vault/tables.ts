/**
 * Every named database of a tenant vault, in one list, grouped by the feature that owns it: its
 * name on disk, its encoding (lmdb-js's default msgpack unless said otherwise) and its options.
 * The names are the on-disk layout: never renamed, or existing vaults would open empty.
 *
 * The vault opens the groups it writes (TenantVault.tablesOf hands each feature of the tenant
 * actor its own group, typed); the export reads every group but `outbound`, whose subscriptions
 * hold signing secrets.
 */
import { type Database, type Key, open, type RootDatabase, type Transaction } from "lmdb";
import type { Change } from "../models/change.ts";
import type { StoredEntry } from "../models/stored-entry.ts";
import type { Delivery, StoredSubscription } from "../models/subscription.ts";
import type { DeliveryRecord, HeldDelivery, SourceState } from "../models/webhook-operations.ts";
import type { EntryRow } from "./entry-rows.ts";
import type { DedupeRecord, IdempotencyRecord, Tombstone } from "./write-set.ts";

interface TableOptions {
  encoding?: "binary";
  /** lmdb-js keeps decoded values in a read cache: for the hot path only (values never mutated). */
  cache?: boolean;
}

/** A table's declaration; `V` and `K` are the types of its values and keys. */
export interface Table<V, K extends Key> extends TableOptions {
  name: string;
  /** Never set: carries the value and key types. */
  readonly types?: [V, K];
}

export const table = <V, K extends Key = string>(name: string, options: TableOptions = {}): Table<V, K> => ({
  name,
  ...options,
});

export const TABLES = {
  /** Entries and what finds them (actors/tenant/memory/). */
  memory: {
    /**
     * seq → the stored entry: appended in sequence order, so a write's pages are the map's last
     * ones. Vaults of the earlier layout (entries under their random id, "entries") are migrated
     * on open (seq-layout.ts).
     */
    entries: table<StoredEntry, number>("entries-by-seq", { cache: true }),
    /** id → seq: the one random-key record of an entry, how a read by id finds it. */
    entryIds: table<number>("entry-ids"),
    /**
     * seq → the entry's one index record (entry-rows.ts): category, tags, both time axes. Read
     * whole into the in-memory summary on open (entry-summary.ts); the newest key gives the
     * highest sequence in use. Vaults of the earlier layout (by-category, by-tag, by-valid) are
     * migrated on open (migrations.ts).
     */
    rows: table<EntryRow, number>("entry-rows"),
    /** seq → id ++ float32 components (vector-records.ts); older vaults are migrated on open. */
    embeddings: table<Buffer, number>("embeddings", { encoding: "binary" }),
    idempotency: table<IdempotencyRecord>("idempotency"),
    /**
     * seq → id of entries waiting for their vector (the background embedder's backlog,
     * actors/tenant/memory/embed-backlog.ts): written with the entry, removed with its vector.
     */
    embedQueue: table<string, number>("embed-queue"),
  },
  /** Webhook and connector ingestion (actors/tenant/ingest/). */
  ingest: {
    /** A source object's key → its latest entry id. */
    objects: table<string>("objects"),
    /** `event_id NUL source` → the dead letter. */
    deadLetters: table<unknown>("dead-letters"),
    /** `source NUL event_id` → the entries the event wrote, with expiry. */
    dedupe: table<DedupeRecord>("dedupe"),
    /** Replay ids, history ids, watch expiry, statuses; `~seq:<key>` guards snapshot order. */
    connectorState: table<unknown>("connector-state"),
    /** [source, arrival seq] → an event delivered while its source was paused (webhook-records.ts). */
    held: table<HeldDelivery, [string, number]>("held-deliveries"),
    /** `source NUL event_id` → its held seq: a redelivery of a held event is a duplicate. */
    heldIds: table<number>("held-ids"),
    /** source → its pause state (sources never paused have none). */
    sources: table<SourceState>("webhook-sources"),
    /** [logged at (epoch ms), n] → one event's outcome, without its body: the delivery log. */
    deliveryLog: table<DeliveryRecord, [number, number]>("delivery-log"),
  },
  /** What erasure leaves of an erased entry (actors/tenant/erase/). */
  erase: {
    tombstones: table<Tombstone>("tombstones"),
  },
  /** The change log every feature's writes add to; the vault numbers it (change-log.ts). */
  log: {
    changes: table<Change, number>("changes"),
    /** [entry id or event id, position] → change type. */
    changesByEntry: table<string, [string, number]>("changes-by-entry"),
  },
  /** The vault's own: counters, index watermarks, the commit marker (counters.ts). */
  vault: {
    meta: table<number>("meta"),
  },
  /** Outbound events (actors/tenant/outbound/): opened on first use, never exported. */
  outbound: {
    subscriptions: table<StoredSubscription>("outbound-subscriptions"),
    deliveries: table<Delivery, [string, number]>("outbound-deliveries"),
  },
} as const;

export type Group = keyof typeof TABLES;

/** A list of tables' opened databases, by their names in the list. */
export type Opened<G> = {
  -readonly [T in keyof G]: G[T] extends Table<infer V, infer K> ? Database<V, K> : never;
};

/** The opened tables of one group, by their names in TABLES: the vault's own, writable handles. */
export type TablesOf<G extends Group> = Opened<(typeof TABLES)[G]>;

/** lmdb-js's methods that write, or open and close: none of them is in a feature's view. */
type WriteMethods =
  | "put"
  | "putSync"
  | "remove"
  | "removeSync"
  | "ifNoExists"
  | "ifVersion"
  | "batch"
  | "transaction"
  | "transactionAsync"
  | "transactionSync"
  | "childTransaction"
  | "clear"
  | "clearAsync"
  | "clearSync"
  | "drop"
  | "dropSync"
  | "deleteDB"
  | "close"
  | "openDB"
  | "backup";

/**
 * A table as a feature sees it: read only. A tenant vault changes through its write sets (and a
 * few named vault methods), so that every change meets the size ceiling, the storage-fault mapping
 * and the write-through that feeds cluster mode's partition changelog.
 */
export type ReadOnlyTable<V, K extends Key = string> = Omit<Database<V, K>, WriteMethods>;

type Viewed<G> = {
  readonly [T in keyof G]: G[T] extends Table<infer V, infer K> ? ReadOnlyTable<V, K> : never;
};

/** lmdb-js's key type and a read transaction, for features that name them (an export). */
export type { Key };
export type ReadTransaction = Transaction;

/** A group's tables as a feature reads them (TenantVault.tablesOf). */
export type TableViews<G extends Group> = Viewed<(typeof TABLES)[G]>;

/** Named databases a tenant environment may hold. */
export const VAULT_MAX_DBS = 32;

/** A tenant directory's LMDB environment (the vault's, or a closed vault's for compaction and repair). */
export function openEnvironment(dir: string): RootDatabase {
  return open({ path: dir, compression: false, maxDbs: VAULT_MAX_DBS });
}

/** Opens a group's tables; `cache: false` for a reader of its own (an export, an import). */
export function openGroup<G extends Group>(
  root: RootDatabase,
  group: G,
  options: { cache?: false } = {},
): TablesOf<G> {
  return openTables(root, TABLES[group], options);
}

/** Opens every table of a list (a tenant vault's group, the system store's slices: system/tables.ts). */
export function openTables<G extends Record<string, Table<unknown, Key>>>(
  root: RootDatabase,
  tables: G,
  options: { cache?: false } = {},
): Opened<G> {
  const opened: Record<string, Database> = {};
  for (const [key, spec] of Object.entries(tables)) {
    const dbOptions: { name: string; encoding?: "binary"; cache?: boolean } = { name: spec.name };
    if (spec.encoding) dbOptions.encoding = spec.encoding;
    if (spec.cache && options.cache !== false) dbOptions.cache = true;
    opened[key] = root.openDB(dbOptions);
  }
  return opened as Opened<G>;
}

/**
 * The committed records of a table from the B-tree's own statistics, in O(1): `getCount()` walks
 * every key, which at 100k entries takes ~35 ms and pages the whole table into memory (+135 MB RSS
 * on each open, where the counters are checked).
 */
export function storedCount(db: Pick<Database, "getStats">): number {
  return (db.getStats() as { entryCount: number }).entryCount;
}
