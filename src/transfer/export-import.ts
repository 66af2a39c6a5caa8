/**
 * Export and import of a tenant (NDJSON, src/models/tenant-export.ts). The tenant actor reads and
 * writes its own vault, a bounded chunk per message; this module streams: out of the actor into
 * the response, and from the request into the actor, validating every line on the way in.
 */
import type { TSchema } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import {
  arrivingVector,
  modelSpaceKindOf,
  unlabelledTier,
  type VectorTier,
} from "../embedding/vector-tiers.ts";
import { ValidationFailed } from "../errors/domain-errors.ts";
import { ndjsonLines } from "../http/ndjson.ts";
import { isoOf } from "../models/common.ts";
import { type ScopeQuery, scopeFilterOf } from "../models/scope.ts";
import {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  type ExportCounts,
  ExportHeader,
  ExportTrailer,
  type ExportHeader as Header,
  type ImportReply,
  type NumberedRecord,
  RECORD_COUNTS,
  RECORD_SCHEMAS,
  type RecordType,
  type RoleRecord,
  type VaultRecord,
  zeroCounts,
} from "../models/tenant-export.ts";
import type { SystemProtocol } from "../protocols/system-protocol.ts";
import type { TenantProtocol } from "../protocols/tenant-protocol.ts";
import type { ActorRef } from "../runtime/actor-system.ts";
import type { Clock } from "../runtime/clock.ts";
import type { SystemStore } from "../vault/system-store.ts";

/** One export message reads at most this many records, or about this much text. */
const EXPORT_CHUNK_RECORDS = 1000;
const EXPORT_CHUNK_BYTES = 1024 * 1024;
/** One import batch (one transaction) holds at most this many records, or about this much text. */
const IMPORT_BATCH_RECORDS = 1000;
const IMPORT_BATCH_BYTES = 8 * 1024 * 1024;
/** Connector state and roles are held until the end of an import: at most this much of them. */
const MAX_DEFERRED_BYTES = 16 * 1024 * 1024;
/** LMDB's key limit (lmdb-js default page size). */
const MAX_KEY_BYTES = 1978;

export interface ExportImportDeps {
  store: SystemStore;
  system: ActorRef<SystemProtocol>;
  tenant(tenantId: string): ActorRef<TenantProtocol>;
  /** Stops the tenant's actor; its next message opens the vault again and rebuilds its indexes. */
  restartTenant(tenantId: string): Promise<void>;
  clock: Clock;
  dims: number;
  /** The runtime's embedder signature (background-embedder.ts): the export's `embedder`. */
  signature: string;
  limits: { maxLineBytes: number; maxBodyBytes: number };
  log?: (line: string) => void;
}

export interface TenantExport {
  /** What the export holds (its header's counts), known before the first byte is sent. */
  counts: ExportCounts;
  stream: ReadableStream<Uint8Array>;
}

type EmbeddingRecord = Extract<VaultRecord, { type: "embedding" }>;

const CHECKS = Object.fromEntries(
  Object.entries(RECORD_SCHEMAS).map(([type, schema]) => [type, TypeCompiler.Compile(schema)]),
) as unknown as Record<RecordType, TypeCheck<TSchema>>;
const HEADER_CHECK = TypeCompiler.Compile(ExportHeader);
const TRAILER_CHECK = TypeCompiler.Compile(ExportTrailer);

export class ExportImport {
  constructor(private readonly deps: ExportImportDeps) {}

  /**
   * A pull stream: each read of the response asks the tenant actor for one chunk of one snapshot,
   * so a slow reader holds the snapshot open, never the mailbox, and nothing accumulates.
   */
  async export(tenantId: string, scope?: ScopeQuery): Promise<TenantExport> {
    const actor = this.deps.tenant(tenantId);
    const exportedAt = isoOf(this.deps.clock.now());
    // Scoped (`?subject=` …): that scope's entries and their embeddings, beside the roles.
    const scoped = scope && scopeFilterOf(scope);
    const { session, counts: vault } = await actor.ask({ type: "export.open", scope: scoped });
    const roles = this.deps.store.listRoles(tenantId).filter((r) => !r.builtin);
    const counts = { ...vault, roles: roles.length };
    const header: Header = {
      type: "header",
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      tenant_id: tenantId,
      tenant_name: this.deps.store.getTenant(tenantId)?.name ?? "",
      exported_at: exportedAt,
      embedding_dims: this.deps.dims,
      embedder: this.deps.signature,
      ...(scoped ? { scope: scoped } : {}),
      counts,
    };
    const opening = [
      header,
      ...roles.map((r) => ({
        type: "role",
        value: { name: r.name, permissions: r.permissions, description: r.description },
      })),
    ];
    const encoder = new TextEncoder();
    let opened = false;
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      actor.ask({ type: "export.close", session }).catch(() => undefined);
    };
    const stream = new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          try {
            if (!opened) {
              opened = true;
              controller.enqueue(encoder.encode(`${opening.map((l) => JSON.stringify(l)).join("\n")}\n`));
              return;
            }
            const chunk = await actor.ask({
              type: "export.read",
              session,
              maxRecords: EXPORT_CHUNK_RECORDS,
              maxBytes: EXPORT_CHUNK_BYTES,
            });
            if (chunk.text) controller.enqueue(encoder.encode(chunk.text));
            if (!chunk.done) return;
            const written = { ...(chunk.written ?? zeroCounts()), roles: roles.length };
            controller.enqueue(encoder.encode(`${JSON.stringify({ type: "trailer", counts: written })}\n`));
            controller.close();
            close();
          } catch (error) {
            // The response ends without its trailer: a reader (and an import) sees it was cut short.
            this.deps.log?.(
              `[export ${tenantId}] stopped: ${error instanceof Error ? error.message : error}`,
            );
            close();
            controller.error(error);
          }
        },
        cancel: close,
      },
      { highWaterMark: 0 },
    );
    return { counts, stream };
  }

  /**
   * Reads the body line by line and writes it batch by batch (one transaction each) into the empty
   * tenant. All or nothing: on any refusal the tenant actor drops what was written, and a crash
   * mid-import is dropped when the vault next opens. The roles replace the tenant's library once
   * the vault's part is complete. The tenant actor is then restarted, so that it sees the vault
   * anew and rebuilds its vector and lexical indexes from it.
   */
  async import(tenantId: string, body: ReadableStream<Uint8Array> | null): Promise<ImportReply> {
    const started = performance.now();
    const actor = this.deps.tenant(tenantId);
    const parser = new ImportParser(tenantId, { dims: this.deps.dims, signature: this.deps.signature });
    const { session } = await actor.ask({ type: "import.begin" });
    try {
      let batch: NumberedRecord[] = [];
      let bytes = 0;
      for await (const line of ndjsonLines(body ?? emptyBody(), this.deps.limits)) {
        const record = parser.line(line.number, line.text);
        if (!record) continue;
        batch.push(record);
        bytes += line.text.length;
        if (batch.length >= IMPORT_BATCH_RECORDS || bytes >= IMPORT_BATCH_BYTES) {
          await actor.ask({ type: "import.batch", session, records: batch });
          batch = [];
          bytes = 0;
        }
      }
      parser.end();
      await actor.ask({ type: "import.finish", session, records: [...batch, ...parser.deferred] });
    } catch (error) {
      await actor.ask({ type: "import.abort", session }).catch(() => undefined);
      await this.deps.restartTenant(tenantId);
      throw error;
    }
    await this.replaceRoles(tenantId, parser.roles);
    await this.deps.restartTenant(tenantId);
    // Opened again now, so the first request after the import does not wait for the index catch-up.
    await actor.ask({ type: "tenant.init" });
    return {
      tenant_id: tenantId,
      source_tenant_id: parser.source,
      imported: parser.written(),
      took_ms: Math.round(performance.now() - started),
    };
  }

  private async replaceRoles(tenantId: string, roles: RoleRecord["value"][]): Promise<void> {
    const kept = new Set<string>();
    for (const role of roles) {
      kept.add(role.name);
      await this.deps.system.ask({
        type: "role.put",
        tenantId,
        role: { name: role.name, permissions: role.permissions, description: role.description ?? "" },
      });
    }
    for (const role of this.deps.store.listRoles(tenantId)) {
      if (!role.builtin && !kept.has(role.name))
        await this.deps.system.ask({ type: "role.delete", tenantId, name: role.name });
    }
  }
}

/**
 * Checks an export line by line: the header first, then records, then the trailer, whose counts
 * must be those of the records read (a truncated or spliced export is refused). Records come out
 * with the target tenant's id where they carry one; connector state and roles are held back to be
 * written last (connector state with the last batch, roles in the system store).
 */
export class ImportParser {
  readonly counts = zeroCounts();
  readonly roles: RoleRecord["value"][] = [];
  readonly deferred: NumberedRecord[] = [];
  private header: Header | undefined;
  /** What becomes of each of the export's vectors here: kept, kept and queued for the model, or dropped. */
  private vectorRule: (tier: VectorTier | undefined) => "keep" | "upgrade" | "drop" = () => "keep";
  private dropped = 0;
  private ended = false;
  private deferredBytes = 0;

  constructor(
    private readonly target: string,
    private readonly runtime: { dims: number; signature: string },
  ) {}

  get source(): string {
    return this.header?.tenant_id ?? "";
  }

  /** The records written: those read, but the embeddings of another embedder. */
  written(): ExportCounts {
    return { ...this.counts, embeddings: this.counts.embeddings - this.dropped };
  }

  /** The vault record of a line, or undefined when the line is held back or is the header or trailer. */
  line(number: number, text: string): NumberedRecord | undefined {
    const value = parseJson(number, text);
    if (this.ended) refuse(number, "/", "nothing may follow the trailer");
    const type = (value as { type?: unknown }).type;
    if (!this.header) {
      if (type !== "header") refuse(number, "/type", "the first line must be the export's header");
      this.header = this.checkHeader(number, value);
      return undefined;
    }
    if (type === "trailer") {
      this.checkTrailer(number, value);
      return undefined;
    }
    if (typeof type !== "string" || !Object.hasOwn(RECORD_SCHEMAS, type))
      refuse(
        number,
        "/type",
        `unknown record type; expected one of ${Object.keys(RECORD_SCHEMAS).join(", ")}, trailer`,
      );
    check(CHECKS[type as RecordType], number, value);
    const record = this.rewritten(number, value as VaultRecord | RoleRecord);
    this.counts[RECORD_COUNTS[record.type]]++;
    if (record.type === "role") {
      this.defer(number, text);
      this.roles.push(record.value);
      return undefined;
    }
    if (record.type === "connector_state") {
      this.defer(number, text);
      this.deferred.push({ line: number, record });
      return undefined;
    }
    if (record.type === "embedding") return this.vector(number, record);
    return { line: number, record };
  }

  /** At the end of the body: the trailer must have been read. */
  end(): void {
    if (!this.header) throw new ValidationFailed("the body is empty: expected an export's header line");
    if (!this.ended)
      throw new ValidationFailed("the export ends without its trailer line: it was cut short", [
        { path: "/", message: "no trailer" },
      ]);
  }

  private checkHeader(number: number, value: unknown): Header {
    check(HEADER_CHECK, number, value);
    const header = value as Header;
    this.vectorRule = vectorRuleOf(header, this.runtime);
    return header;
  }

  /**
   * An embedding line as it is written: dropped (another embedder's, or a tier the runtime does
   * not keep: its entry is queued for this runtime's embedder when the vault opens), kept, or
   * kept with `tier: "static"`, which the import writer queues for the model's upgrade.
   */
  private vector(number: number, record: EmbeddingRecord): NumberedRecord | undefined {
    const rule = this.vectorRule(record.tier);
    if (rule === "drop") {
      this.dropped++;
      return undefined;
    }
    const { tier: _, ...plain } = record;
    return { line: number, record: rule === "upgrade" ? { ...plain, tier: "static" } : plain };
  }

  private checkTrailer(number: number, value: unknown): void {
    check(TRAILER_CHECK, number, value);
    const claimed = (value as { counts: ExportCounts }).counts;
    for (const [key, count] of Object.entries(this.counts)) {
      const said = claimed[key as keyof ExportCounts];
      if (said !== count)
        refuse(number, `/counts/${key}`, `the trailer counts ${said} ${key}, but the export holds ${count}`);
    }
    this.ended = true;
  }

  /** The record with ids of the target tenant, checked where a schema cannot check. */
  private rewritten(number: number, record: VaultRecord | RoleRecord): VaultRecord | RoleRecord {
    if ("key" in record && Buffer.byteLength(record.key) > MAX_KEY_BYTES)
      refuse(number, "/key", `a key may hold at most ${MAX_KEY_BYTES} bytes`);
    switch (record.type) {
      case "entry":
        return {
          ...record,
          value: { ...record.value, entry: { ...record.value.entry, tenant_id: this.target } },
        };
      case "dead_letter":
        return { ...record, value: { ...record.value, tenant_id: this.target } };
      case "idempotency": {
        // A replayed write answers the entry it first answered: now an entry of this tenant.
        const body = record.value.body as { tenant_id?: unknown } | null;
        if (body && typeof body === "object" && body.tenant_id === this.source)
          return { ...record, value: { ...record.value, body: { ...body, tenant_id: this.target } } };
        return record;
      }
      case "embedding": {
        const dims = this.header?.embedding_dims ?? this.runtime.dims;
        if (record.value.length !== Math.ceil((dims * 4) / 3) * 4)
          refuse(number, "/value", `an embedding must be ${dims} float32 values, base64-encoded`);
        return record;
      }
      default:
        return record;
    }
  }

  private defer(number: number, text: string): void {
    this.deferredBytes += text.length;
    if (this.deferredBytes > MAX_DEFERRED_BYTES)
      refuse(number, "/", `connector state and roles may hold at most ${MAX_DEFERRED_BYTES} bytes in all`);
  }
}

/**
 * Which of an export's vectors this runtime keeps. In the sentence model's space (`local`,
 * `static`, `tiered`) by tier, whichever of them exported (vector-tiers.ts); otherwise only the
 * runtime's own signature's. An export of before the signature is judged by its vectors' length,
 * as an older vault is (under `tiered` its vectors are queued for the model: it may be a table's).
 */
function vectorRuleOf(
  header: Header,
  runtime: { dims: number; signature: string },
): (tier: VectorTier | undefined) => "keep" | "upgrade" | "drop" {
  const here = modelSpaceKindOf(runtime.signature);
  if (header.embedder === undefined) {
    const kept = here === "tiered" ? "upgrade" : "keep";
    return () => (header.embedding_dims === runtime.dims ? kept : "drop");
  }
  const exporter = modelSpaceKindOf(header.embedder);
  if (here && exporter) return (tier) => arrivingVector(tier ?? unlabelledTier(exporter), here);
  return () => (header.embedder === runtime.signature ? "keep" : "drop");
}

function parseJson(number: number, text: string): object {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    refuse(number, "/", "not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    refuse(number, "/", "each line must be a JSON object");
  return value;
}

function check(schema: TypeCheck<TSchema>, number: number, value: unknown): void {
  if (schema.Check(value)) return;
  const errors = [...schema.Errors(value)]
    .slice(0, 20)
    .map((e) => ({ path: e.path || "/", message: `line ${number}: ${e.message}` }));
  const first = errors[0];
  throw new ValidationFailed(
    first
      ? `line ${number}: ${first.path}: ${first.message.slice(`line ${number}: `.length)}`
      : `line ${number}: invalid`,
    errors,
  );
}

function refuse(number: number, path: string, message: string): never {
  throw new ValidationFailed(`line ${number}: ${message}`, [{ path, message: `line ${number}: ${message}` }]);
}

function emptyBody(): ReadableStream<Uint8Array> {
  return new ReadableStream({ start: (c) => c.close() });
}
