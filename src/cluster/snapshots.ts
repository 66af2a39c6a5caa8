/**
 * Partition snapshots in the JetStream object store `mr-snapshots` (docs/cluster.md, "Snapshots"):
 * per snapshot a manifest `<NN>/<seq>/manifest` ({seq, epoch, tenants, outbound}) and each tenant's LMDB file
 * `<NN>/<seq>/<tenant>`, exactly the partition's changelog applied up to and including `seq`.
 * A takeover loads the snapshot of the highest `seq` whose manifest is complete (so the snapshot a
 * takeover sees never goes back, whoever uploaded last) and replays the log after `seq` only.
 * Objects of older snapshots are deleted once a newer manifest is written, their chunks
 * overwritten first (they may hold entries erased or tenants deleted since: secure-delete.ts).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type JetStreamClient, jetstream } from "@nats-io/jetstream";
import { type ObjectStore, Objm } from "@nats-io/obj";
import type { NatsConnection } from "@nats-io/transport-node";
import { markOutbound } from "../outbound/marker.ts";
import { tenantDir } from "../vault/tenant-paths.ts";
import { markedTenants } from "./outbound-markers.ts";
import { partitionLabel } from "./partition.ts";
import { overwriteObject } from "./secure-delete.ts";

export const SNAPSHOTS_BUCKET = "mr-snapshots";
/** LMDB's data file: the whole vault (the lock file is recreated on open). */
const DATA_FILE = "data.mdb";

export interface Manifest {
  /** The last changelog sequence the snapshot holds. */
  seq: number;
  /** The newest claim at or before `seq`: records after `seq` of an older epoch are fenced out. */
  epoch: number;
  tenants: string[];
  /**
   * The tenants whose vault holds an active subscription: their outbound marker, which lives beside
   * the vault file (outbound-markers.ts). Absent from manifests of earlier versions, whose vaults
   * held no subscriptions (those were not in the changelog then).
   */
  outbound?: string[];
}

export const NO_SNAPSHOT: Manifest = { seq: 0, epoch: 0, tenants: [] };

export class Snapshots {
  /** One upload per partition at a time on this node (takeover and periodic snapshots). */
  private readonly chains = new Map<number, Promise<unknown>>();

  private constructor(
    private readonly store: ObjectStore,
    private readonly js: JetStreamClient,
  ) {}

  static async open(nc: NatsConnection): Promise<Snapshots> {
    return new Snapshots(await new Objm(nc).create(SNAPSHOTS_BUCKET), jetstream(nc));
  }

  /** The complete snapshot of the highest sequence (NO_SNAPSHOT: none). */
  async latest(partition: number): Promise<Manifest> {
    const seqs = await this.manifestSeqs(partition);
    const seq = seqs.at(-1);
    if (seq === undefined) return NO_SNAPSHOT;
    const raw = await this.store.getBlob(`${partitionLabel(partition)}/${seq}/manifest`);
    if (!raw) return NO_SNAPSHOT;
    const manifest = JSON.parse(new TextDecoder().decode(raw)) as Manifest;
    return { ...manifest, epoch: manifest.epoch ?? manifest.seq };
  }

  /** Writes the snapshot's vault files into `dataDir`, with the outbound markers it names. */
  async loadFiles(partition: number, manifest: Manifest, dataDir: string): Promise<void> {
    const prefix = `${partitionLabel(partition)}/${manifest.seq}`;
    const marked = new Set(manifest.outbound ?? []);
    for (const tenantId of manifest.tenants) {
      const bytes = await readObject(this.store, `${prefix}/${tenantId}`);
      if (!bytes) throw new Error(`snapshot ${prefix} lacks tenant ${tenantId}`);
      const dir = tenantDir(dataDir, tenantId);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, DATA_FILE), bytes);
      if (marked.has(tenantId)) markOutbound(dir);
    }
  }

  /**
   * Copies the tenants' closed vault files now (they are exactly the log up to `manifest.seq`), then
   * uploads them and, last, the manifest, then deletes older snapshots of the partition. Answers
   * once the whole upload is done; the copies are made before the first await.
   */
  capture(partition: number, manifest: Manifest, dataDir: string): Promise<void> {
    const staging = mkdtempSync(join(tmpdir(), "mr-snapshot-"));
    const kept = manifest.tenants.filter((t) => existsSync(join(tenantDir(dataDir, t), DATA_FILE)));
    for (const tenantId of kept)
      copyFileSync(join(tenantDir(dataDir, tenantId), DATA_FILE), join(staging, tenantId));
    const outbound = markedTenants(dataDir, kept);
    const run = () =>
      this.upload(partition, { ...manifest, tenants: kept, outbound }, staging).finally(() =>
        rmSync(staging, { recursive: true, force: true }),
      );
    const next = (this.chains.get(partition) ?? Promise.resolve()).then(run, run);
    this.chains.set(
      partition,
      next.catch(() => undefined),
    );
    return next;
  }

  private async upload(partition: number, manifest: Manifest, staging: string): Promise<void> {
    const prefix = `${partitionLabel(partition)}/${manifest.seq}`;
    for (const tenantId of manifest.tenants)
      await this.store.put({ name: `${prefix}/${tenantId}` }, Bun.file(join(staging, tenantId)).stream());
    await this.store.putBlob(
      { name: `${prefix}/manifest` },
      new TextEncoder().encode(JSON.stringify(manifest)),
    );
    await this.deleteOlder(partition, manifest.seq);
  }

  /**
   * Older snapshots are never read again (a takeover takes the highest complete one). Their chunks
   * are overwritten first; failing to is an error (what they hold may be erased data), and the
   * next snapshot of the partition deletes them again.
   */
  private async deleteOlder(partition: number, seq: number): Promise<void> {
    const label = partitionLabel(partition);
    for (const info of await this.store.list()) {
      const older = snapshotSeqOf(label, info.name);
      if (older === undefined || older >= seq) continue;
      await overwriteObject(this.js, SNAPSHOTS_BUCKET, info.nuid);
      await this.store.delete(info.name);
    }
  }

  private async manifestSeqs(partition: number): Promise<number[]> {
    const label = partitionLabel(partition);
    const seqs: number[] = [];
    for (const info of await this.store.list()) {
      const seq = snapshotSeqOf(label, info.name);
      if (seq !== undefined && info.name.endsWith("/manifest")) seqs.push(seq);
    }
    return seqs.sort((a, b) => a - b);
  }
}

/** A chunk not arriving for this long: the object was deleted while read (a newer snapshot exists). */
const READ_IDLE_MS = 10_000;

/**
 * An object's bytes (null: no such object). The object store's own read waits forever for chunks
 * deleted meanwhile (an older snapshot being replaced), so a read that stalls is abandoned with an
 * error: the takeover reading it fails and is retried, then finds the newer snapshot.
 */
export async function readObject(
  store: ObjectStore,
  name: string,
  idleMs = READ_IDLE_MS,
): Promise<Uint8Array | null> {
  const object = await store.get(name);
  if (!object) return null;
  const reader = object.data.getReader();
  const parts: Uint8Array[] = [];
  for (;;) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stalled = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`reading ${name} stalled (deleted meanwhile?)`)), idleMs);
    });
    try {
      const { done, value } = await Promise.race([reader.read(), stalled]);
      if (done) break;
      if (value?.length) parts.push(value);
    } catch (error) {
      await reader.cancel().catch(() => undefined);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
  const failed = await object.error;
  if (failed) throw failed;
  return Buffer.concat(parts);
}

/** `<label>/<seq>/…` → seq; undefined for another partition's objects. */
function snapshotSeqOf(label: string, name: string): number | undefined {
  const match = /^(\d+)\/(\d+)\//.exec(name);
  return match && match[1] === label ? Number(match[2]) : undefined;
}
