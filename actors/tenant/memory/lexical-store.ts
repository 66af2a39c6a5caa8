import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { Entry } from "../../../src/models/entry.ts";
import { LexicalIndex } from "../../../src/search/lexical/lexical-index.ts";
import { readJournal } from "../../../src/search/lexical/lexical-journal.ts";
import { TENANT_LEXICAL_FILE } from "../../../src/search/vector/index-tuning.ts";
import { replaceDurably } from "../../../src/search/vector/vector-files.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import type { EntryStore } from "./entry-store.ts";
import { LEXICAL_SCHEME, lexicalDocument } from "./lexical-document.ts";

/** The journal beside the saved index: a name the compaction after an erasure removes too (isVectorIndexFile). */
export const TENANT_LEXICAL_JOURNAL = `${TENANT_LEXICAL_FILE}.log`;
/** Changes read per step when catching the index up with the vault. */
const CATCH_UP_CHUNK = 1000;
/** A write appends the journal once this many documents wait (a few hundred KB, one fsync). */
const JOURNAL_EVERY_DOCS = 10_000;
/** Between messages the journal is appended only when this many documents wait (fsyncs stay rare). */
const IDLE_JOURNAL_DOCS = 1000;
/**
 * The whole index is saved again once the journal passes a quarter of the full save (and 1 MB), so
 * an open replays little: a journal takes ~40 bytes and ~1.6 µs to replay an entry, against ~31
 * bytes and ~0.05 µs read back from a full save (bench corpus), so at a million entries the replay
 * stays under ~0.3 s, and each full save (~0.1-0.3 s there) comes after a quarter more entries.
 */
const MIN_JOURNAL_BYTES = 1 << 20;
const JOURNAL_SHARE = 0.25;

/**
 * A tenant's BM25 index, always current: every entry's words are added as it is written (the write's
 * own message), so a search never waits for a build. On disk it is a full save (`lexical.bm25`,
 * lexical-file.ts) and a journal (`lexical.bm25.log`, lexical-journal.ts) of the documents added
 * since, appended every JOURNAL_EVERY_DOCS documents, when the actor is idle and at close; once the
 * journal passes a quarter of the full save, the whole index is saved again under a new epoch (a journal of an
 * older epoch is ignored, so a crash between the two steps is harmless). Each save records the
 * change-log position it holds through; an open reads the save, replays the journal (no analysis)
 * and catches up from the change log what a crash lost, never every entry.
 *
 * Two cases still analyse every entry, once, at the first use: a vault of before saved indexes (or
 * whose index was saved under another analyzer or field weights), and a vault after an erasure
 * (the erased entries' words must go, and its compaction removes the files).
 */
export class LexicalStore {
  private index: LexicalIndex | undefined;
  private epoch = 0;
  private readonly basePath: string;
  private readonly journalPath: string;
  /**
   * The change-log position the index surely holds through while a write's entries are being added
   * (a batch's positions are all handed out before its first entry is added, so `current()` may run
   * ahead of the index): the last position of the write before the one being added.
   */
  private safeWatermark: number;
  /** `changes.current()` as the last `add` saw it. */
  private seenCurrent: number;
  /** Whether a full save exists (journal segments extend one). */
  private hasBase = false;
  /** Bytes of the last full save, and of the journal since. */
  private baseBytes = 0;
  private journalBytes = 0;

  constructor(
    private readonly vault: TenantVault,
    private readonly entries: EntryStore,
  ) {
    this.basePath = join(vault.dir, TENANT_LEXICAL_FILE);
    this.journalPath = join(vault.dir, TENANT_LEXICAL_JOURNAL);
    this.seenCurrent = vault.changes.current();
    this.safeWatermark = this.seenCurrent;
    this.index = this.load() ?? (entries.count() === 0 ? this.fresh() : undefined);
  }

  /** The index; made from every entry only when the open could not read one (see the class). */
  current(): LexicalIndex {
    if (!this.index) {
      const index = this.fresh();
      for (const stored of this.entries.all()) index.add(stored.entry.id, lexicalDocument(stored.entry));
      // Writes still awaiting their commit are not in `all()` yet; `add` skips ids it already has.
      for (const stored of this.entries.pending()) index.add(stored.entry.id, lexicalDocument(stored.entry));
      this.index = index;
      // Saved at once: a crash must not make the next open analyse every entry again.
      this.saveWhole();
    }
    return this.index;
  }

  /**
   * A new entry's words, at once; the journal is appended when enough wait, stamped with the last
   * position of the writes whose entries are all in (never the one being added: a crash must not
   * leave part of a batch behind the watermark).
   */
  add(entry: Entry): void {
    const current = this.vault.changes.current();
    if (current !== this.seenCurrent) {
      // A new write: every entry of the writes before it has been added.
      this.safeWatermark = this.seenCurrent;
      this.seenCurrent = current;
    }
    const index = this.index;
    if (!index?.add(entry.id, lexicalDocument(entry))) return;
    if (index.journalPending >= JOURNAL_EVERY_DOCS) this.checkpoint(1, this.safeWatermark);
  }

  /** Between messages: the journal is appended if enough documents wait. */
  idle(): void {
    this.checkpoint(IDLE_JOURNAL_DOCS);
  }

  /**
   * Saves what waits (at least `minDocs` documents): a journal segment, or the whole index when
   * there is no full save yet or the journal grew past its share of it. `watermark`: how far the index holds the
   * change log (between messages, every position handed out).
   */
  checkpoint(minDocs = 1, watermark = this.vault.changes.current()): void {
    const index = this.index;
    if (!index || index.journalPending < Math.max(1, minDocs)) return;
    if (!this.hasBase || this.journalBytes > Math.max(this.baseBytes * JOURNAL_SHARE, MIN_JOURNAL_BYTES)) {
      this.saveWhole(watermark);
      return;
    }
    const segment = index.takeJournal(this.epoch, watermark);
    if (segment) {
      appendDurably(this.journalPath, segment);
      this.journalBytes += segment.byteLength;
    }
  }

  /** Erased entries' words must go, in memory and on disk: the index is made anew at its next use. */
  forget(): void {
    this.index = undefined;
    rmSync(this.journalPath, { force: true });
    rmSync(this.basePath, { force: true });
  }

  close(): void {
    this.checkpoint();
  }

  private fresh(): LexicalIndex {
    const index = new LexicalIndex({ scheme: LEXICAL_SCHEME });
    index.journal();
    return index;
  }

  /** The saved index, its journal replayed and caught up with the vault; undefined if it cannot serve. */
  private load(): LexicalIndex | undefined {
    if (!existsSync(this.basePath)) return undefined;
    let read: ReturnType<typeof LexicalIndex.read>;
    try {
      // A file of another analyzer or field weights is refused: the index is built anew.
      read = LexicalIndex.read(readFileSync(this.basePath), { scheme: LEXICAL_SCHEME });
    } catch {
      return undefined;
    }
    const { index, stamp } = read;
    this.epoch = stamp.epoch;
    this.hasBase = true;
    this.baseBytes = statSync(this.basePath).size;
    // Format 2 kept its watermark in the vault; it is saved in the current format below.
    const upgraded = stamp.watermark < 0;
    const journal = upgraded
      ? { watermark: this.vault.indexedThrough(TENANT_LEXICAL_FILE), clean: false }
      : this.replayJournal(index, stamp.watermark);
    // What the catch-up adds goes to the journal, so a crash does not make the next open repeat it.
    index.journal();
    if (!this.catchUp(index, journal.watermark)) return undefined;
    this.index = index;
    // A journal with a torn or stale tail cannot be appended to: the whole index is saved instead.
    if (!journal.clean) this.saveWhole();
    else this.checkpoint();
    return index;
  }

  /** Adds the journal's segments of this epoch; answers their watermark and whether all of it applied. */
  private replayJournal(index: LexicalIndex, baseWatermark: number): { watermark: number; clean: boolean } {
    if (!existsSync(this.journalPath)) return { watermark: baseWatermark, clean: true };
    const bytes = readFileSync(this.journalPath);
    const { segments, validBytes } = readJournal(bytes, this.epoch);
    let watermark = baseWatermark;
    for (const segment of segments) {
      if (!index.replay(segment)) return { watermark, clean: false };
      watermark = segment.watermark;
    }
    this.journalBytes = validBytes;
    return { watermark, clean: validBytes === bytes.byteLength };
  }

  /** Adds the entries created after `watermark`; false when an erasure came since (build anew). */
  private catchUp(index: LexicalIndex, watermark: number): boolean {
    let after = watermark;
    for (;;) {
      const changes = this.vault.changes.since(after, CATCH_UP_CHUNK);
      if (changes.length === 0) break;
      for (const change of changes) {
        // An erasure since the save: the saved words of erased entries must go, so build anew.
        if (change.type === "entry.erased") return false;
        if (change.type !== "entry.created") continue;
        const stored = this.entries.get(change.id);
        if (stored) index.add(stored.entry.id, lexicalDocument(stored.entry));
      }
      after = changes[changes.length - 1]!.seq;
    }
    for (const stored of this.entries.pending()) index.add(stored.entry.id, lexicalDocument(stored.entry));
    return true;
  }

  /**
   * The whole index under a new epoch. The old journal goes first: a crash in between leaves the old
   * save without its journal, which the change log catches up. (Segments of another epoch are
   * ignored anyway.)
   */
  private saveWhole(watermark = this.vault.changes.current()): void {
    const index = this.index;
    if (!index) return;
    rmSync(this.journalPath, { force: true });
    this.journalBytes = 0;
    this.epoch++;
    const bytes = index.toBytes({ epoch: this.epoch, watermark });
    index.journal();
    replaceDurably(this.basePath, [bytes]);
    this.hasBase = true;
    this.baseBytes = bytes.byteLength;
  }
}

function appendDurably(path: string, bytes: Uint8Array): void {
  const fd = openSync(path, "a");
  try {
    let written = 0;
    while (written < bytes.byteLength) written += writeSync(fd, bytes, written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
