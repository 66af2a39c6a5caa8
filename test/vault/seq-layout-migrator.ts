/**
 * A child process for seq-layout-migration.test.ts: migrates the closed tenant vault in argv[2]
 * to the sequence-keyed layout in transactions of argv[3] entries, and after each committed one
 * prints `copied N` and waits (up to a minute) for the parent's kill -9, so the kill lands
 * mid-migration with the layout marker not set yet.
 */
import { writeSync } from "node:fs";
import { migrateSeqLayout } from "../../src/vault/seq-layout.ts";
import { openEnvironment, openGroup } from "../../src/vault/tables.ts";

const [dir, chunk] = [process.argv[2]!, Number(process.argv[3])];
const root = openEnvironment(dir);
const memory = openGroup(root, "memory");
const { meta } = openGroup(root, "vault");
const parked = new Int32Array(new SharedArrayBuffer(4));
migrateSeqLayout(root, memory, meta, {
  chunk,
  afterChunk: (copied) => {
    writeSync(1, `copied ${copied}\n`);
    Atomics.wait(parked, 0, 0, 60_000);
  },
});
writeSync(1, "migrated\n");
