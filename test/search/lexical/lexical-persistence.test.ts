import { describe, expect, test } from "bun:test";
import { Analyzer } from "../../../src/search/lexical/analyzer.ts";
import { DocIds } from "../../../src/search/lexical/doc-ids.ts";
import { LexicalIndex } from "../../../src/search/lexical/lexical-index.ts";
import { readJournal } from "../../../src/search/lexical/lexical-journal.ts";
import { PostingLists } from "../../../src/search/lexical/lexical-postings.ts";

const hex = (i: number) => i.toString(16).padStart(8, "0");

const TEXTS = [
  "Refund approved for the damaged shipment to Acme",
  "Quarterly planning meeting for the sales team",
  "Shipment delayed at customs; customer informed",
  "The team agreed the refund policy für Kunden",
  "ñandú 東京 office party",
];
const QUERIES = ["refund shipment", "team", "customs customer", "kunden", "東京", "party office"];

function expectSameAnswers(a: LexicalIndex, b: LexicalIndex) {
  for (const query of QUERIES) expect(b.search(query, 10)).toEqual(a.search(query, 10));
  expect(b.size).toBe(a.size);
}

describe("DocIds: document numbers of entry ids", () => {
  test("hex ids and other ids map both ways, past the initial capacity, and through a snapshot", () => {
    const ids = new DocIds();
    for (let i = 0; i < 5000; i++) expect(ids.push(hex(i * 7919))).toBe(i);
    expect(ids.push("not-hex")).toBe(5000);
    expect(ids.push("FFFFFFFF")).toBe(5001);
    expect(ids.size).toBe(5002);
    for (const i of [0, 1, 2500, 4999]) {
      expect(ids.docOf(hex(i * 7919))).toBe(i);
      expect(ids.idOf(i)).toBe(hex(i * 7919));
    }
    expect(ids.docOf("not-hex")).toBe(5000);
    expect(ids.idOf(5001)).toBe("FFFFFFFF");
    expect(ids.docOf("00000001")).toBeUndefined();
    expect(ids.docOf("ffffffff")).toBeUndefined();
    const { codes, others } = ids.snapshot();
    const copy = DocIds.from(codes, others);
    expect(copy.size).toBe(5002);
    expect(copy.docOf(hex(4999 * 7919))).toBe(4999);
    expect(copy.docOf("not-hex")).toBe(5000);
    expect(copy.idOf(5001)).toBe("FFFFFFFF");
    expect(copy.push(hex(1))).toBe(5002);
    expect(copy.docOf(hex(1))).toBe(5002);
  });
});

describe("PostingLists: varint-delta postings", () => {
  test("decodes what was appended, small and large gaps and counts alike", () => {
    const lists = new PostingLists();
    const term = lists.addTerm();
    const docs = [0, 1, 127, 128, 16_384, 2_000_000, 4_000_000_000];
    const counts = [16, 8, 300, 1, 70_000, 16, 2 ** 31];
    for (const [i, doc] of docs.entries()) lists.append(term, doc, counts[i]!);
    const seen: Array<[number, number]> = [];
    lists.decode(term, (doc, tf) => seen.push([doc, tf]));
    expect(seen).toEqual(docs.map((doc, i) => [doc, counts[i]!]));
    expect(lists.counts[term]).toBe(docs.length);
    // Typical postings (small gap, a count of 16) take 2 bytes.
    const dense = lists.addTerm();
    for (let doc = 0; doc < 1000; doc++) lists.append(dense, doc, 16);
    expect(lists.bytesOf(dense).length).toBe(2000);
  });
});

describe("PostingLists: rare terms in the shared pool", () => {
  test("a term stays in its slot while it fits, then moves to its own buffer; reads are the same", () => {
    const lists = new PostingLists();
    const rare = lists.addTerm();
    const growing = lists.addTerm();
    lists.append(rare, 5, 16);
    for (let doc = 0; doc < 12; doc++) lists.append(growing, doc * 1000, 16);
    expect(lists.buffers[rare]).toBeUndefined();
    expect(lists.buffers[growing]).toBeInstanceOf(Uint8Array);
    const read = (term: number) => {
      const out: number[] = [];
      lists.decode(term, (doc, tf) => out.push(doc, tf));
      return out;
    };
    expect(read(rare)).toEqual([5, 16]);
    expect(read(growing)).toEqual(Array.from({ length: 12 }, (_, i) => [i * 1000, 16]).flat());
    // Many terms: the pool grows with them, earlier slots kept.
    for (let i = 0; i < 1000; i++) lists.append(lists.addTerm(), i, 8);
    expect(read(rare)).toEqual([5, 16]);
    expect(read(1001)).toEqual([999, 8]);
  });

  test("an index of rare and common words answers the same after a save and a read back", () => {
    const index = new LexicalIndex();
    for (let i = 0; i < 300; i++) index.add(hex(i), `common words and a rare one zq${i}x`);
    const copy = LexicalIndex.fromBytes(index.toBytes());
    for (const query of ["zq7x", "zq299x common", "words"])
      expect(copy.search(query, 5)).toEqual(index.search(query, 5));
  });
});

describe("LexicalIndex: full saves", () => {
  test("the current format keeps ids of any form, counts and the stamp", () => {
    const index = new LexicalIndex();
    for (const [i, text] of TEXTS.entries()) index.add(i === 2 ? "custom-id" : hex(i), text);
    const { index: copy, stamp } = LexicalIndex.read(index.toBytes({ epoch: 7, watermark: 42 }));
    expect(stamp).toEqual({ epoch: 7, watermark: 42 });
    expectSameAnswers(index, copy);
    expect(copy.search("customs", 1)[0]?.id).toBe("custom-id");
  });

  test("a file of format 2 (u32 postings, watermark in the vault) is read, unstamped", () => {
    const index = new LexicalIndex({ scheme: "s" });
    for (const [i, text] of TEXTS.entries()) index.add(hex(i), text);
    const { index: copy, stamp } = LexicalIndex.read(formatTwoBytes(TEXTS, "s"), { scheme: "s" });
    expect(stamp.watermark).toBe(-1);
    expectSameAnswers(index, copy);
    expect(() => LexicalIndex.read(formatTwoBytes(TEXTS, "s"), { scheme: "other" })).toThrow(/other fields/);
  });
});

describe("LexicalIndex: the journal", () => {
  test("segments replayed onto the save give the same index, without analysing again", () => {
    const index = new LexicalIndex();
    index.add(hex(0), TEXTS[0]!);
    const base = index.toBytes({ epoch: 1, watermark: 1 });
    index.journal();
    index.add(hex(1), TEXTS[1]!);
    index.add("custom-id", TEXTS[2]!);
    expect(index.journalPending).toBe(2);
    const first = index.takeJournal(1, 3)!;
    expect(index.journalPending).toBe(0);
    index.add(hex(3), TEXTS[3]!);
    index.add(hex(4), TEXTS[4]!);
    const second = index.takeJournal(1, 5)!;
    expect(index.takeJournal(1, 5)).toBeUndefined();

    const { segments, validBytes } = readJournal(Buffer.concat([first, second]), 1);
    expect(validBytes).toBe(first.length + second.length);
    expect(segments.map((s) => s.watermark)).toEqual([3, 5]);
    const copy = LexicalIndex.fromBytes(base);
    for (const segment of segments) expect(copy.replay(segment)).toBe(true);
    expectSameAnswers(index, copy);
    // Replayed twice, a segment no longer fits where the index ends: refused, nothing added.
    expect(copy.replay(segments[0]!)).toBe(false);
    expect(copy.size).toBe(5);
  });

  test("reading stops at a torn segment, a bad checksum or another epoch", () => {
    const index = new LexicalIndex();
    index.journal();
    index.add(hex(0), TEXTS[0]!);
    const first = index.takeJournal(2, 1)!;
    index.add(hex(1), TEXTS[1]!);
    const second = index.takeJournal(2, 2)!;
    const both = Buffer.concat([first, second]);
    expect(readJournal(both.subarray(0, both.length - 3), 2).segments).toHaveLength(1);
    expect(readJournal(both.subarray(0, both.length - 3), 2).validBytes).toBe(first.length);
    const corrupt = Buffer.from(both);
    corrupt[corrupt.length - 1]! ^= 0xff;
    expect(readJournal(corrupt, 2).segments).toHaveLength(1);
    expect(readJournal(both, 3).segments).toHaveLength(0);
  });
});

describe("LexicalIndex: the accumulator", () => {
  test("a scorer taken before other queries still answers its own query's scores", () => {
    const index = new LexicalIndex();
    for (const [i, text] of TEXTS.entries()) index.add(hex(i), text);
    const hits = index.search("refund shipment", 5);
    const score = index.scorer("refund shipment");
    index.search("team", 5);
    for (const hit of hits) expect(score(hit.id)).toBeCloseTo(hit.score, 12);
    // Documents added since: the scores are computed again over the grown corpus.
    index.add(hex(9), "refund refund");
    expect(score(hex(9))).toBeGreaterThan(0);
    expect(index.search("refund shipment", 10).find((h) => h.id === hex(9))?.score).toBe(score(hex(9)));
  });
});

/** Format 2 as the previous release wrote it: u32 (doc, tf) pairs, 8-character ids, no stamp. */
function formatTwoBytes(texts: string[], scheme: string): Uint8Array {
  const analyzer = new Analyzer();
  const terms = new Map<string, Array<[number, number]>>();
  const lengths: number[] = [];
  texts.forEach((text, doc) => {
    const counts = new Map<string, number>();
    let length = 0;
    for (const term of analyzer.documentTerms(text)) {
      counts.set(term, (counts.get(term) ?? 0) + 16);
      length += 16;
    }
    lengths.push(length);
    for (const [term, tf] of counts) terms.set(term, [...(terms.get(term) ?? []), [doc, tf]]);
  });
  const sig = Buffer.from(`${analyzer.signature}; ${scheme}`);
  const chunks: Buffer[] = [];
  const header = Buffer.alloc(26);
  header.writeUInt32LE(0x584c4d54, 0);
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(texts.length, 8);
  header.writeUInt32LE(terms.size, 12);
  header.writeDoubleLE(
    lengths.reduce((a, b) => a + b, 0),
    16,
  );
  header.writeUInt16LE(sig.length, 24);
  chunks.push(header, sig);
  for (let doc = 0; doc < texts.length; doc++) chunks.push(Buffer.from(hex(doc), "latin1"));
  for (const length of lengths) chunks.push(u32(length));
  for (const [term, postings] of terms) {
    const bytes = Buffer.from(term, "utf8");
    const size = Buffer.alloc(2);
    size.writeUInt16LE(bytes.length, 0);
    chunks.push(size, bytes, u32(postings.length));
    for (const [doc, tf] of postings) chunks.push(u32(doc), u32(tf));
  }
  return Buffer.concat(chunks);
}

function u32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32LE(value, 0);
  return out;
}
