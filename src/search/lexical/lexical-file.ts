import { DocIds } from "./doc-ids.ts";
import { PostingLists, writeVarint } from "./lexical-postings.ts";

const LEXICAL_MAGIC = 0x584c4d54; // "TMLX"
/**
 * 1: plain counts, no signature. 2: weighted counts (TF_UNITS) and a signature, (u32, u32)
 * postings, 8-character ids. 3: varint postings, ids as u32, an epoch and a watermark.
 */
const LEXICAL_FORMAT = 3;
const V2_HEADER_BYTES = 26;
/** magic, format, epoch, docs, terms, other ids (u32 each), total length, watermark (f64), signature length (u16). */
const HEADER_BYTES = 42;

/** What a BM25 index holds, as lexical-index.ts keeps it. */
export interface LexicalState {
  terms: Map<string, number>;
  termNames: string[];
  postings: PostingLists;
  ids: DocIds;
  /** Weighted document lengths, in TF_UNITS. */
  docLengths: Uint32Array;
  totalLength: number;
}

/** A saved index's stamp: its journal's epoch and how far it holds the vault's change log. */
export interface LexicalStamp {
  epoch: number;
  watermark: number;
}

/**
 * The index as bytes, so a restart loads it instead of analysing every entry again:
 *   header (see HEADER_BYTES), signature (UTF-8),
 *   ids (u32 each: the 8 hex characters of an entry id), other ids (doc u32, UTF-8 length u16, bytes),
 *   document lengths (u32 each),
 *   per term: UTF-8 length (varint), UTF-8 bytes, postings (varint), last doc (varint), bytes
 *   (varint), then its postings as the index keeps them (lexical-postings.ts).
 * The signature names how the terms were made (analyzer version, fields and weights): bytes of
 * another signature are refused, and the caller rebuilds the index from its documents.
 */
export function lexicalBytes(state: LexicalState, signature: string, stamp: LexicalStamp): Uint8Array {
  const { codes, others } = state.ids.snapshot();
  const docs = codes.length;
  const sig = Buffer.from(signature, "utf8");
  const otherBytes = [...others].map(([doc, id]) => [doc, Buffer.from(id, "utf8")] as const);
  const names = state.termNames.map((term) => Buffer.from(term, "utf8"));
  let size = HEADER_BYTES + sig.length + docs * 8;
  for (const [, id] of otherBytes) size += 6 + id.length;
  for (let t = 0; t < names.length; t++) size += 20 + names[t]!.length + state.postings.used[t]!;
  const out = Buffer.alloc(size);
  let at = out.writeUInt32LE(LEXICAL_MAGIC, 0);
  at = out.writeUInt32LE(LEXICAL_FORMAT, at);
  at = out.writeUInt32LE(stamp.epoch, at);
  at = out.writeUInt32LE(docs, at);
  at = out.writeUInt32LE(names.length, at);
  at = out.writeUInt32LE(otherBytes.length, at);
  at = out.writeDoubleLE(state.totalLength, at);
  at = out.writeDoubleLE(stamp.watermark, at);
  at = out.writeUInt16LE(sig.length, at);
  at += sig.copy(out, at);
  for (let doc = 0; doc < docs; doc++) at = out.writeUInt32LE(codes[doc]!, at);
  for (const [doc, id] of otherBytes) {
    at = out.writeUInt32LE(doc, at);
    at = out.writeUInt16LE(id.length, at);
    at += id.copy(out, at);
  }
  for (let doc = 0; doc < docs; doc++) at = out.writeUInt32LE(state.docLengths[doc]!, at);
  const { postings } = state;
  for (let t = 0; t < names.length; t++) {
    at = writeVarint(out, at, names[t]!.length);
    at += names[t]!.copy(out, at);
    at = writeVarint(out, at, postings.counts[t]!);
    at = writeVarint(out, at, postings.last[t]! + 1);
    const bytes = postings.bytesOf(t);
    at = writeVarint(out, at, bytes.length);
    out.set(bytes, at);
    at += bytes.length;
  }
  return out.subarray(0, at);
}

/** The state read back from `lexicalBytes`, and its stamp; throws on bytes of another format or signature. */
export function lexicalState(bytes: Uint8Array, signature: string): LexicalState & LexicalStamp {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.byteLength < 8 || buf.readUInt32LE(0) !== LEXICAL_MAGIC) throw new Error("not a lexical index");
  const format = buf.readUInt32LE(4);
  if (format === 2) return { ...lexicalStateV2(buf, signature), epoch: 0, watermark: -1 };
  if (format !== LEXICAL_FORMAT || buf.byteLength < HEADER_BYTES)
    throw new Error("not a lexical index of this format");
  const reader = new Reader(buf, HEADER_BYTES);
  const epoch = buf.readUInt32LE(8);
  const docs = buf.readUInt32LE(12);
  const termCount = buf.readUInt32LE(16);
  const otherCount = buf.readUInt32LE(20);
  const totalLength = buf.readDoubleLE(24);
  const watermark = buf.readDoubleLE(32);
  if (reader.utf8(buf.readUInt16LE(40)) !== signature)
    throw new Error("a lexical index made by another analyzer or with other fields");
  const codes = reader.u32s(docs);
  const others = new Map<number, string>();
  for (let i = 0; i < otherCount; i++) {
    const doc = reader.u32();
    others.set(doc, reader.utf8(reader.u16()));
  }
  const docLengths = new Uint32Array(Math.max(1024, docs));
  docLengths.set(reader.u32s(docs));
  const terms = new Map<string, number>();
  const termNames: string[] = [];
  const postings = new PostingLists();
  for (let t = 0; t < termCount; t++) {
    const term = reader.utf8(reader.varint());
    const count = reader.varint();
    const last = reader.varint() - 1;
    postings.adoptTerm(reader.copy(reader.varint()), count, last);
    terms.set(term, t);
    termNames.push(term);
  }
  if (reader.at !== buf.byteLength) throw new Error("a lexical index file of the wrong length");
  const ids = DocIds.from(codes, others);
  return { terms, termNames, postings, ids, docLengths, totalLength, epoch, watermark };
}

/** Format 2 (before varint postings), read so that an upgrade does not analyse every entry again. */
function lexicalStateV2(buf: Buffer, signature: string): LexicalState {
  const docs = buf.readUInt32LE(8);
  const termCount = buf.readUInt32LE(12);
  const totalLength = buf.readDoubleLE(16);
  const reader = new Reader(buf, V2_HEADER_BYTES);
  if (reader.utf8(buf.readUInt16LE(24)) !== signature)
    throw new Error("a lexical index made by another analyzer or with other fields");
  const ids = new DocIds();
  for (let doc = 0; doc < docs; doc++) ids.push(reader.latin1(8));
  const docLengths = new Uint32Array(Math.max(1024, docs));
  docLengths.set(reader.u32s(docs));
  const terms = new Map<string, number>();
  const termNames: string[] = [];
  const postings = new PostingLists();
  for (let t = 0; t < termCount; t++) {
    const term = reader.utf8(reader.u16());
    const count = reader.u32();
    const pairs = reader.u32s(2 * count);
    const number = postings.addTerm();
    for (let i = 0; i < pairs.length; i += 2) postings.append(number, pairs[i]!, pairs[i + 1]!);
    terms.set(term, number);
    termNames.push(term);
  }
  if (reader.at !== buf.byteLength) throw new Error("a lexical index file of the wrong length");
  return { terms, termNames, postings, ids, docLengths, totalLength };
}

class Reader {
  constructor(
    private readonly buf: Buffer,
    public at: number,
  ) {}

  u16(): number {
    const value = this.buf.readUInt16LE(this.at);
    this.at += 2;
    return value;
  }

  u32(): number {
    const value = this.buf.readUInt32LE(this.at);
    this.at += 4;
    return value;
  }

  /** `count` u32 LE values, copied (the file's offsets are not aligned). */
  u32s(count: number): Uint32Array {
    const out = new Uint32Array(count);
    new Uint8Array(out.buffer).set(this.buf.subarray(this.at, this.at + 4 * count));
    this.at += 4 * count;
    return out;
  }

  varint(): number {
    let value = 0;
    let shift = 0;
    for (;;) {
      const byte = this.buf[this.at++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
      shift += 7;
    }
  }

  utf8(length: number): string {
    const text = this.buf.toString("utf8", this.at, this.at + length);
    this.at += length;
    return text;
  }

  latin1(length: number): string {
    const text = this.buf.toString("latin1", this.at, this.at + length);
    this.at += length;
    return text;
  }

  copy(length: number): Uint8Array {
    const bytes = new Uint8Array(this.buf.subarray(this.at, this.at + length));
    this.at += length;
    return bytes;
  }
}
