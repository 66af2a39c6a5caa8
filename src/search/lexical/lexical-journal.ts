import { hexCode } from "./doc-ids.ts";
import { readVarintRest, writeVarint } from "./lexical-postings.ts";

const SEGMENT_MAGIC = 0x4a4c4d54; // "TMLJ"
/** magic, epoch, body bytes, crc32 (u32 LE each), watermark (f64 LE). */
const SEGMENT_HEADER = 24;

/** One document as the index keeps it: analysed already (term numbers, weighted counts). */
export interface AnalysedDoc {
  id: string;
  /** Weighted length, in TF_UNITS. */
  length: number;
  /** Term numbers and their weighted counts, interleaved. */
  pairs: ArrayLike<number>;
}

/** What a segment adds: the terms it names first (numbered from `firstTerm`), then its documents. */
export interface Segment {
  watermark: number;
  firstDoc: number;
  firstTerm: number;
  terms: string[];
  docs: AnalysedDoc[];
}

/**
 * The documents a BM25 index gained since its last save, as they will be appended to its journal:
 * analysed (term numbers and counts, not text), so replaying a segment costs no analysis. Bytes are
 * encoded as documents come, so a checkpoint writes a buffer it already holds.
 */
export class JournalBuffer {
  private bytes = new Uint8Array(4096);
  private at = 0;
  private terms: string[] = [];
  private docs = 0;

  constructor(
    private firstDoc: number,
    private firstTerm: number,
  ) {}

  get pendingDocs(): number {
    return this.docs;
  }

  addTerm(term: string): void {
    this.terms.push(term);
  }

  addDoc(doc: AnalysedDoc): void {
    const { id, length, pairs } = doc;
    this.reserve(16 + 2 * id.length + 10 * pairs.length);
    const code = hexCode(id);
    if (code >= 0) {
      this.bytes[this.at++] = 0;
      this.at = writeVarint(this.bytes, this.at, code);
    } else {
      const encoded = Buffer.from(id, "utf8");
      this.bytes[this.at++] = 1;
      this.at = writeVarint(this.bytes, this.at, encoded.length);
      this.bytes.set(encoded, this.at);
      this.at += encoded.length;
    }
    this.at = writeVarint(this.bytes, this.at, length);
    this.at = writeVarint(this.bytes, this.at, pairs.length / 2);
    for (let i = 0; i < pairs.length; i++) this.at = writeVarint(this.bytes, this.at, pairs[i]!);
    this.docs++;
  }

  /** The segment of what was added, stamped with its epoch and watermark; the buffer starts anew. */
  take(epoch: number, watermark: number): Uint8Array {
    const termBytes = this.terms.map((term) => Buffer.from(term, "utf8"));
    let bodyLength = 16 + this.at;
    for (const term of termBytes) bodyLength += 5 + term.length;
    const out = Buffer.alloc(SEGMENT_HEADER + bodyLength);
    let at = SEGMENT_HEADER;
    at = out.writeUInt32LE(this.firstDoc, at);
    at = out.writeUInt32LE(this.firstTerm, at);
    at = out.writeUInt32LE(termBytes.length, at);
    for (const term of termBytes) {
      at = writeVarint(out, at, term.length);
      at += term.copy(out, at);
    }
    at = out.writeUInt32LE(this.docs, at);
    out.set(this.bytes.subarray(0, this.at), at);
    at += this.at;
    const segment = out.subarray(0, at);
    segment.writeUInt32LE(SEGMENT_MAGIC, 0);
    segment.writeUInt32LE(epoch, 4);
    segment.writeUInt32LE(at - SEGMENT_HEADER, 8);
    segment.writeUInt32LE(Bun.hash.crc32(segment.subarray(SEGMENT_HEADER)), 12);
    segment.writeDoubleLE(watermark, 16);
    this.firstDoc += this.docs;
    this.firstTerm += this.terms.length;
    this.bytes = new Uint8Array(4096);
    this.at = 0;
    this.terms = [];
    this.docs = 0;
    return segment;
  }

  private reserve(bytes: number): void {
    if (this.at + bytes <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.at + bytes));
    grown.set(this.bytes.subarray(0, this.at));
    this.bytes = grown;
  }
}

/**
 * The segments of a journal written under `epoch`, in order, and the bytes they span. Reading stops
 * at the first segment that is torn (a crash while appending), fails its checksum or belongs to
 * another epoch (a journal left beside a newer full save): what follows it is not trusted, and the
 * caller truncates the file there.
 */
export function readJournal(bytes: Uint8Array, epoch: number): { segments: Segment[]; validBytes: number } {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const segments: Segment[] = [];
  let at = 0;
  while (at + SEGMENT_HEADER <= buf.length) {
    if (buf.readUInt32LE(at) !== SEGMENT_MAGIC || buf.readUInt32LE(at + 4) !== epoch) break;
    const length = buf.readUInt32LE(at + 8);
    const end = at + SEGMENT_HEADER + length;
    if (end > buf.length) break;
    const body = buf.subarray(at + SEGMENT_HEADER, end);
    if (Bun.hash.crc32(body) !== buf.readUInt32LE(at + 12)) break;
    segments.push(decodeSegment(body, buf.readDoubleLE(at + 16)));
    at = end;
  }
  return { segments, validBytes: at };
}

function decodeSegment(body: Buffer, watermark: number): Segment {
  let at = 0;
  const varint = () => {
    const first = body[at++]!;
    if (first < 0x80) return first;
    const [value, next] = readVarintRest(body, at, first);
    at = next;
    return value;
  };
  const firstDoc = body.readUInt32LE(0);
  const firstTerm = body.readUInt32LE(4);
  const termCount = body.readUInt32LE(8);
  at = 12;
  const terms: string[] = [];
  for (let t = 0; t < termCount; t++) {
    const length = varint();
    terms.push(body.toString("utf8", at, at + length));
    at += length;
  }
  const docCount = body.readUInt32LE(at);
  at += 4;
  const docs: AnalysedDoc[] = [];
  for (let d = 0; d < docCount; d++) {
    const kind = body[at++]!;
    let id: string;
    if (kind === 0) id = varint().toString(16).padStart(8, "0");
    else {
      const length = varint();
      id = body.toString("utf8", at, at + length);
      at += length;
    }
    const length = varint();
    const pairs = new Uint32Array(2 * varint());
    for (let i = 0; i < pairs.length; i++) pairs[i] = varint();
    docs.push({ id, length, pairs });
  }
  return { watermark, firstDoc, firstTerm, terms, docs };
}
