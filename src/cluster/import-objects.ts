/**
 * Imported vaults in the JetStream object store `mr-imports` (docs/cluster.md, "Tenant imports"):
 * one object per import, the tenant's LMDB data file as the import left it, named
 * `<NN>/<epoch>/<tenant>/<unique>`, `epoch` being the owner's epoch the import's record is appended
 * under (the record names its object). Which objects a snapshot makes useless is import-ledger.ts's.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type JetStreamClient, jetstream } from "@nats-io/jetstream";
import { type ObjectStore, Objm } from "@nats-io/obj";
import type { NatsConnection } from "@nats-io/transport-node";
import { tenantDir } from "../vault/tenant-paths.ts";
import { partitionLabel } from "./partition.ts";
import { overwriteObject } from "./secure-delete.ts";

export const IMPORTS_BUCKET = "mr-imports";
/** LMDB's data file: the whole vault (the lock file is recreated on open). */
const DATA_FILE = "data.mdb";
/**
 * Chunks near one message (the client caps them at the server's max_payload): each chunk is one
 * acknowledged publish, and a vault is tens of MB (~20% faster than the client's 128 KiB).
 */
const CHUNK_BYTES = 960 * 1024;

export interface ImportObjectName {
  partition: number;
  epoch: number;
  tenantId: string;
}

/** The object of one import into `tenantId`, whose record is appended under `epoch`. */
export function importObjectName(
  partition: number,
  epoch: number,
  tenantId: string,
  unique: string = randomUUID(),
): string {
  return `${partitionLabel(partition)}/${epoch}/${tenantId}/${unique}`;
}

export function parseImportObjectName(name: string): ImportObjectName | undefined {
  const match = /^(\d{2})\/(\d+)\/([0-9A-Z]{26})\/[^/]+$/.exec(name);
  if (!match) return undefined;
  return { partition: Number(match[1]), epoch: Number(match[2]), tenantId: match[3]! };
}

export class ImportObjects {
  private constructor(
    private readonly store: ObjectStore,
    private readonly js: JetStreamClient,
  ) {}

  static async open(nc: NatsConnection): Promise<ImportObjects> {
    return new ImportObjects(await new Objm(nc).create(IMPORTS_BUCKET), jetstream(nc));
  }

  /** Uploads a vault's data file (streamed, not held in memory). */
  async upload(name: string, dataFile: string): Promise<void> {
    await this.store.put({ name, options: { max_chunk_size: CHUNK_BYTES } }, Bun.file(dataFile).stream());
  }

  /**
   * Makes the tenant's vault in `dataDir` the imported one: whatever was there goes (the import
   * replaced it on the owner too). A missing object is an error, never an empty vault: the replay
   * fails and its claim is retried (an older snapshot read before a purge, restore.ts).
   */
  async restore(name: string, dataDir: string, tenantId: string): Promise<void> {
    const found = await this.store.get(name);
    if (!found) throw new Error(`import object ${name} is missing`);
    const dir = tenantDir(dataDir, tenantId);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    await Bun.write(join(dir, DATA_FILE), new Response(found.data));
    const failed = await found.error;
    if (failed) throw failed;
  }

  /**
   * Deletes the objects `useless` names (a snapshot covers them), their chunks overwritten first
   * (a vault may hold entries erased since: secure-delete.ts); answers how many.
   */
  async deleteWhere(useless: (name: string) => boolean): Promise<number> {
    let deleted = 0;
    for (const info of await this.store.list()) {
      if (!useless(info.name)) continue;
      await overwriteObject(this.js, IMPORTS_BUCKET, info.nuid);
      await this.store.delete(info.name);
      deleted++;
    }
    return deleted;
  }
}
