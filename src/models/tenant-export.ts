import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { CATEGORIES } from "./category.ts";
import { Change } from "./change.ts";
import { IsoTime, LiteralUnion, Sha8, StrictObject, ULID_RE } from "./common.ts";
import { DeadLetter } from "./dead-letter.ts";
import { EntryView } from "./entry.ts";
import { RoleBody } from "./role.ts";
import { named } from "./schema-name.ts";
import type { ScopeQuery } from "./scope.ts";

/**
 * A tenant's export (`GET /admin/tenants/{tenant_id}/export`) and the body of its import: NDJSON, one
 * JSON object a line. A header first, then records of the tenant's vault and role library in any
 * order, then a trailer with the counts written (a stream cut short has no trailer, and an import
 * refuses it). Each record is `{type, key?, value}`: what one key of one of the vault's databases
 * holds, exactly as stored; the indexes derivable from them (by category, tag, valid time, the
 * change log by entry) are not exported but rebuilt on import. Secrets never are: not a database
 * named `outbound-*`, not the secrets module.
 */
export const EXPORT_FORMAT = "typed-memory-runtime/tenant-export";
export const EXPORT_VERSION = 1;

/** The record types, each with the key of its count in the header and trailer. */
export const RECORD_COUNTS = {
  entry: "entries",
  embedding: "embeddings",
  object: "objects",
  dead_letter: "dead_letters",
  dedupe: "dedupe",
  idempotency: "idempotency",
  connector_state: "connector_state",
  change: "changes",
  tombstone: "tombstones",
  counter: "counters",
  role: "roles",
} as const;
export type RecordType = keyof typeof RECORD_COUNTS;

const Count = Type.Integer({ minimum: 0 });

/** How many records of each type an export holds (header: in its snapshot; trailer: written). */
export const ExportCounts = StrictObject({
  entries: Count,
  embeddings: Count,
  objects: Count,
  dead_letters: Count,
  dedupe: Count,
  idempotency: Count,
  connector_state: Count,
  changes: Count,
  tombstones: Count,
  counters: Count,
  roles: Count,
});
export type ExportCounts = Static<typeof ExportCounts>;

export function zeroCounts(): ExportCounts {
  return {
    entries: 0,
    embeddings: 0,
    objects: 0,
    dead_letters: 0,
    dedupe: 0,
    idempotency: 0,
    connector_state: 0,
    changes: 0,
    tombstones: 0,
    counters: 0,
    roles: 0,
  };
}

/**
 * The meta keys an export carries: entries per category (`n:`), writes per day and category (`w:`),
 * the legacy sequence mark and the counters' version. Other meta keys are not the export's business.
 */
export const COUNTER_KEY_RE = new RegExp(
  `^(n:(${CATEGORIES.join("|")})|w:[0-9]{4}-[0-9]{2}-[0-9]{2}:(${CATEGORIES.join("|")})|seq|counters)$`,
);

/** A key of a string-keyed database: LMDB takes at most 1978 bytes (checked in bytes on import). */
const Key = Type.String({ minLength: 1, maxLength: 1978 });
const Base64 = Type.String({
  pattern: "^[A-Za-z0-9+/]*={0,2}$",
  description: "base64 of little-endian float32",
});

const keyed = <T extends RecordType, K extends TSchema, V extends TSchema>(type: T, key: K, value: V) =>
  StrictObject({ type: Type.Literal(type), key, value });
const unkeyed = <T extends RecordType, V extends TSchema>(type: T, value: V) =>
  StrictObject({ type: Type.Literal(type), value });

export const ExportHeader = StrictObject({
  type: Type.Literal("header"),
  format: Type.Literal(EXPORT_FORMAT),
  version: Type.Literal(EXPORT_VERSION),
  tenant_id: Type.String({ pattern: ULID_RE.source }),
  tenant_name: Type.String(),
  exported_at: IsoTime,
  /** Length of every embedding of the export. */
  embedding_dims: Type.Integer({ minimum: 1, maximum: 4096 }),
  /**
   * What made the embeddings: the exporting runtime's embedder signature, its kind (`hash`,
   * `local`, `tiered`, `http`, `client`…), for a service its model, and its dims (`tiered/512`,
   * `http/<model>/<dims>`); each embedding line of the model's space says its tier. An import keeps
   * them when they are comparable with the importing runtime's (the same signature, or the same
   * space and a tier it keeps) and queues the entries for its own embedder otherwise; an export
   * without it (older) is judged by `embedding_dims`.
   */
  embedder: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
  /**
   * A scoped export (`?subject=`, `?session_id=`, `?agent_id=`): the entries of that scope and
   * their embeddings only, with the roles; no other record (docs/operations.md).
   */
  scope: Type.Optional(
    StrictObject({
      subject: Type.Optional(Type.String()),
      session_id: Type.Optional(Type.String()),
      agent_id: Type.Optional(Type.String()),
    }),
  ),
  counts: ExportCounts,
});
export type ExportHeader = Static<typeof ExportHeader>;

export const ExportTrailer = StrictObject({ type: Type.Literal("trailer"), counts: ExportCounts });
export type ExportTrailer = Static<typeof ExportTrailer>;

/** An entry with both time axes as stored: its sequence number, and `valid_to` before a supersession. */
export const StoredEntryRecord = StrictObject({
  seq: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  // Origin and trust are kept as exported; an export of an earlier runtime has none (derived on read).
  entry: StrictObject({
    ...EntryView.properties,
    origin: Type.Optional(EntryView.properties.origin),
    trust: Type.Optional(EntryView.properties.trust),
  }),
  prior_valid_to: Type.Optional(Type.Union([IsoTime, Type.Null()])),
  prior_status: Type.Optional(Type.Union([Type.Literal("open"), Type.Literal("resolved")])),
});

/** An object's timeline as the objects index keeps it: a JSON array of [id, valid_from ms, role, category]. */
const Timeline = Type.String({ pattern: "^\\[", maxLength: 65_536 });

/** An erased entry's trace (the fields an import needs; others the vault keeps are carried along). */
const Tombstone = Type.Object(
  { id: Sha8, category: LiteralUnion(CATEGORIES), erased_at: IsoTime },
  { additionalProperties: true },
);

export const RECORD_SCHEMAS = {
  entry: unkeyed("entry", StoredEntryRecord),
  /**
   * An entry's vector, keyed by the entry's id. `tier` (model-space embedders: `local`, `static`,
   * `tiered`): `static` for the distilled table's vector, `model` for the sentence model's; left out
   * by other embedders and by exports of before it (the header's embedder made it).
   */
  embedding: StrictObject({
    type: Type.Literal("embedding"),
    key: Sha8,
    value: Base64,
    tier: Type.Optional(LiteralUnion(["static", "model"] as const)),
  }),
  /** The objects index: an object's latest entry, or its timeline (actors/tenant/ingest/timeline.ts, JSON). */
  object: keyed("object", Key, Type.Union([Sha8, Timeline])),
  /** Keyed by event id and source, both in the record. */
  dead_letter: unkeyed("dead_letter", DeadLetter),
  dedupe: keyed(
    "dedupe",
    Key,
    StrictObject({ at: Type.Number(), entries: Type.Array(Sha8, { maxItems: 10_000 }) }),
  ),
  idempotency: keyed(
    "idempotency",
    Key,
    StrictObject({
      at: Type.Number(),
      status: Type.Integer({ minimum: 100, maximum: 599 }),
      body: Type.Unknown(),
      request: Type.Optional(Type.String()),
    }),
  ),
  connector_state: keyed("connector_state", Key, Type.Unknown()),
  change: unkeyed("change", Change),
  tombstone: keyed("tombstone", Sha8, Tombstone),
  counter: keyed("counter", Type.String({ pattern: COUNTER_KEY_RE.source }), Count),
  /** A role of the tenant's library (the built-in tenant_admin is never exported). */
  role: unkeyed("role", RoleBody),
} as const;

export type StoredEntryRecord = Static<typeof StoredEntryRecord>;
type RecordOf = { [T in RecordType]: Static<(typeof RECORD_SCHEMAS)[T]> };
export type RoleRecord = RecordOf["role"];

/** A record of one of the vault's databases, as an import hands it to the tenant actor. */
export type VaultRecord = RecordOf[Exclude<RecordType, "role">];

/** A chunk of an export as the tenant actor reads it. */
export interface ExportChunk {
  /** NDJSON lines, each ending in a newline. */
  text: string;
  done: boolean;
  /** Records written, by type: on the last chunk. */
  written?: ExportCounts;
}

/** A vault record with the line it was read from (a refusal names the line). */
export interface NumberedRecord {
  line: number;
  record: VaultRecord;
}

/** `POST /admin/tenants/{tenant_id}/import` answers what it wrote. */
export const ImportReply = named(
  "ImportReport",
  StrictObject({
    tenant_id: Type.String(),
    source_tenant_id: Type.String({ description: "The tenant the export was taken from" }),
    imported: ExportCounts,
    took_ms: Type.Number(),
  }),
);
export type ImportReply = Static<typeof ImportReply>;

/** The tenant actor's messages of export and import (part of TenantProtocol). */
export type TenantTransferProtocol = {
  /** Opens a snapshot of the vault to export; `counts`: what it holds (roles: 0, they are the system store's). */
  /** `scope`: only the entries of that scope, and their embeddings (a scoped export). */
  "export.open": { msg: { scope?: ScopeQuery }; reply: { session: number; counts: ExportCounts } };
  /** The snapshot's next records, after the last key read. */
  "export.read": { msg: { session: number; maxRecords: number; maxBytes: number }; reply: ExportChunk };
  "export.close": { msg: { session: number }; reply: undefined };
  /** Starts an import into the empty vault (409 otherwise); other messages get 503 until the actor restarts. */
  "import.begin": { msg: object; reply: { session: number } };
  /** One transaction of records; refused whole (a duplicate id, sequence or change position). */
  "import.batch": { msg: { session: number; records: NumberedRecord[] }; reply: undefined };
  /** The last records (connector state with them), then the import is complete. */
  "import.finish": { msg: { session: number; records: NumberedRecord[] }; reply: undefined };
  /** Drops whatever the import wrote. */
  "import.abort": { msg: { session: number }; reply: undefined };
};
