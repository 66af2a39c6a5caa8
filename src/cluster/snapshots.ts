/**
 * Partition snapshots in the JetStream object store `mr-snapshots` (docs/cluster.md, "Snapshots"):
 * a manifest `<NN>/manifest` ({seq, tenants}) and each tenant's LMDB file `<NN>/<tenant>`, exactly
 * the partition's changelog applied up to `seq`. They are taken where that state is known exactly:
 * right after a takeover's replay, before the partition is served (the files are copied then, and
 * uploaded in the background; the manifest last). A takeover loads the manifest's files and replays
 * the log from `seq` only. The log itself is kept whole (never purged), so an older or a missing
 * snapshot only costs replay time, never data.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ObjectStore, Objm } from "@nats-io/obj";
import type { NatsConnection } from "@nats-io/transport-node";
import { tenantDir } from "../vault/tenant-paths.ts";
import { partitionLabel } from "./partition.ts";

export const SNAPSHOTS_BUCKET = "mr-snapshots";
/** LMDB's data file: the whole vault (the lock file is recreated on open). */
const DATA_FILE = "data.mdb";

interface Manifest {
  seq: number;
  tenants: string[];
}

export class Snapshots {
  private constructor(private readonly store: ObjectStore) {}

  static async open(nc: NatsConnection): Promise<Snapshots> {
    return new Snapshots(await new Objm(nc).create(SNAPSHOTS_BUCKET));
  }

  /** Writes the latest snapshot's vault files into `dataDir`; answers its sequence (0: none). */
  async load(partition: number, dataDir: string): Promise<{ seq: number; tenants: string[] }> {
    const label = partitionLabel(partition);
    const raw = await this.store.getBlob(`${label}/manifest`);
    if (!raw) return { seq: 0, tenants: [] };
    const manifest = JSON.parse(new TextDecoder().decode(raw)) as Manifest;
    for (const tenantId of manifest.tenants) {
      const bytes = await this.store.getBlob(`${label}/${tenantId}`);
      if (!bytes) throw new Error(`snapshot ${label} lacks tenant ${tenantId}`);
      const dir = tenantDir(dataDir, tenantId);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, DATA_FILE), bytes);
    }
    return manifest;
  }

  /**
   * Copies the tenants' closed vault files now (they are exactly the log up to `seq`), then
   * uploads them and, last, the manifest; answers once the copies are made, with the upload's promise.
   */
  capture(partition: number, seq: number, dataDir: string, tenants: string[]): Promise<void> {
    const staging = mkdtempSync(join(tmpdir(), "mr-snapshot-"));
    const kept = tenants.filter((t) => existsSync(join(tenantDir(dataDir, t), DATA_FILE)));
    for (const tenantId of kept)
      copyFileSync(join(tenantDir(dataDir, tenantId), DATA_FILE), join(staging, tenantId));
    return this.upload(partitionLabel(partition), seq, staging, kept).finally(() =>
      rmSync(staging, { recursive: true, force: true }),
    );
  }

  private async upload(label: string, seq: number, staging: string, tenants: string[]): Promise<void> {
    for (const tenantId of tenants)
      await this.store.put({ name: `${label}/${tenantId}` }, Bun.file(join(staging, tenantId)).stream());
    const manifest: Manifest = { seq, tenants };
    await this.store.putBlob(
      { name: `${label}/manifest` },
      new TextEncoder().encode(JSON.stringify(manifest)),
    );
  }
}
