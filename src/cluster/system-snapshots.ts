/**
 * Snapshots of the cluster-wide system state (docs/cluster.md, "Cluster-wide system state"), in
 * the JetStream object store `mr-system-snapshots`: one object per snapshot, named by the last
 * `MR_SYSTEM` sequence it holds, whose content is a compacted copy of a node's system store (LMDB's
 * own copy, consistent at one read transaction). An object is listed only once its upload is
 * complete (the object store writes its metadata last), so the highest name is always whole.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ObjectStore, Objm } from "@nats-io/obj";
import type { NatsConnection } from "@nats-io/transport-node";
import { appliedSeqIn, type SystemStore } from "../vault/system-store.ts";
import { readObject } from "./snapshots.ts";

export const SYSTEM_SNAPSHOTS_BUCKET = "mr-system-snapshots";
/** LMDB's data file, the whole store (the lock file is recreated on open). */
const DATA_FILE = "data.mdb";
/** A snapshot deleted while it was read (a newer one replaced it) is read again from the list. */
const LOAD_ATTEMPTS = 3;

export class SystemSnapshots {
  private constructor(private readonly objects: ObjectStore) {}

  static async open(nc: NatsConnection): Promise<SystemSnapshots> {
    return new SystemSnapshots(await new Objm(nc).create(SYSTEM_SNAPSHOTS_BUCKET));
  }

  /** The sequence of the newest complete snapshot; 0 when there is none. */
  async latestSeq(): Promise<number> {
    return (await this.seqs()).at(-1) ?? 0;
  }

  /**
   * Replaces the store's content by the newest snapshot whose sequence is at least `atLeast`;
   * answers its sequence. Throws when there is none.
   */
  async loadInto(store: SystemStore, atLeast: number): Promise<number> {
    let failure: unknown;
    for (let attempt = 0; attempt < LOAD_ATTEMPTS; attempt++) {
      const seq = await this.latestSeq();
      if (seq < atLeast) throw new Error(`no system snapshot at or after ${atLeast} (newest: ${seq})`);
      const staging = mkdtempSync(join(tmpdir(), "mr-system-load-"));
      try {
        // Not getBlob: its read waits forever for the chunks of a snapshot a newer one deletes meanwhile.
        const bytes = await readObject(this.objects, String(seq));
        if (!bytes) throw new Error(`system snapshot ${seq} is gone`);
        writeFileSync(join(staging, DATA_FILE), bytes);
        await store.replaceWith(staging);
        return seq;
      } catch (error) {
        failure = error;
      } finally {
        rmSync(staging, { recursive: true, force: true });
      }
    }
    throw failure;
  }

  /**
   * Uploads a copy of the store as it is now unless a snapshot at least as new exists; answers the
   * sequence the copy holds (0: nothing uploaded). Older snapshots are deleted once it is complete.
   */
  async capture(store: SystemStore): Promise<number> {
    const staging = mkdtempSync(join(tmpdir(), "mr-system-snapshot-"));
    try {
      await store.backup(staging);
      const seq = await appliedSeqIn(staging);
      if (seq === 0 || seq <= (await this.latestSeq())) return 0;
      await this.objects.put({ name: String(seq) }, Bun.file(join(staging, DATA_FILE)).stream());
      await this.deleteOlder(seq);
      return seq;
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }

  /** Nobody reads an older snapshot again (a load takes the newest). */
  private async deleteOlder(seq: number): Promise<void> {
    for (const older of await this.seqs())
      if (older < seq) await this.objects.delete(String(older)).catch(() => undefined);
  }

  private async seqs(): Promise<number[]> {
    const seqs: number[] = [];
    for (const info of await this.objects.list()) if (/^\d+$/.test(info.name)) seqs.push(Number(info.name));
    return seqs.sort((a, b) => a - b);
  }
}
