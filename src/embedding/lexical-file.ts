import { Postings } from "./lexical-postings.ts";

const LEXICAL_MAGIC = 0x584c4d54; // "TMLX"
/** 1: plain counts, no signature. 2: weighted counts (TF_UNITS) and a signature. */
const LEXICAL_FORMAT = 2;
const HEADER_BYTES = 26;
/** Entry ids are 8 hex characters. */
const ID_BYTES = 8;

/** What a BM25 index holds, as lexical-index.ts keeps it. */
export interface LexicalState {
  terms: Map<string, Postings>;
  ids: string[];
  /** Weighted document lengths, in TF_UNITS. */
  docLengths: Uint32Array;
  totalLength: number;
}

/**
 * The index as bytes, so a restart loads it instead of analysing every entry again:
 *   magic, format (u32 LE), docs, terms (u32 LE), total length (f64 LE), signature length (u16),
 *   signature (UTF-8), ids (8 ASCII bytes each), document lengths (u32 each),
 *   per term: UTF-8 length (u16), UTF-8 bytes, postings (u32), then (doc, tf) pairs (u32 each).
 * The signature names how the terms were made (analyzer version, fields and weights): bytes of
 * another signature are refused, and the caller rebuilds the index from its documents.
 */
export function lexicalBytes(state: LexicalState, signature: string): Uint8Array {
  const terms = [...state.terms].map(([term, postings]) => [Buffer.from(term, "utf8"), postings] as const);
  const sig = Buffer.from(signature, "utf8");
  const docs = state.ids.length;
  if (state.ids.some((id) => id.length !== ID_BYTES)) throw new Error("only 8-character ids can be saved");
  let size = HEADER_BYTES + sig.length + docs * (ID_BYTES + 4);
  for (const [bytes, postings] of terms) size += 2 + bytes.length + 4 + postings.length * 8;
  const out = Buffer.alloc(size);
  let at = out.writeUInt32LE(LEXICAL_MAGIC, 0);
  at = out.writeUInt32LE(LEXICAL_FORMAT, at);
  at = out.writeUInt32LE(docs, at);
  at = out.writeUInt32LE(terms.length, at);
  at = out.writeDoubleLE(state.totalLength, at);
  at = out.writeUInt16LE(sig.length, at);
  at += sig.copy(out, at);
  for (const id of state.ids) at += out.write(id, at, ID_BYTES, "latin1");
  for (let doc = 0; doc < docs; doc++) at = out.writeUInt32LE(state.docLengths[doc]!, at);
  for (const [bytes, postings] of terms) {
    at = out.writeUInt16LE(bytes.length, at);
    at += bytes.copy(out, at);
    at = out.writeUInt32LE(postings.length, at);
    for (let i = 0; i < postings.length * 2; i++) at = out.writeUInt32LE(postings.pairs[i]!, at);
  }
  return out;
}

/** The state read back from `lexicalBytes`; throws on bytes of another format or signature. */
export function lexicalState(bytes: Uint8Array, signature: string): LexicalState {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (
    buf.byteLength < HEADER_BYTES ||
    buf.readUInt32LE(0) !== LEXICAL_MAGIC ||
    buf.readUInt32LE(4) !== LEXICAL_FORMAT
  )
    throw new Error("not a lexical index of this format");
  const docs = buf.readUInt32LE(8);
  const termCount = buf.readUInt32LE(12);
  const totalLength = buf.readDoubleLE(16);
  const sigLength = buf.readUInt16LE(24);
  let at = HEADER_BYTES + sigLength;
  if (buf.toString("utf8", HEADER_BYTES, at) !== signature)
    throw new Error("a lexical index made by another analyzer or with other fields");
  const ids: string[] = [];
  for (let doc = 0; doc < docs; doc++, at += ID_BYTES) ids.push(buf.toString("latin1", at, at + ID_BYTES));
  const docLengths = new Uint32Array(Math.max(1024, docs));
  for (let doc = 0; doc < docs; doc++, at += 4) docLengths[doc] = buf.readUInt32LE(at);
  const terms = new Map<string, Postings>();
  for (let t = 0; t < termCount; t++) {
    const length = buf.readUInt16LE(at);
    const term = buf.toString("utf8", at + 2, at + 2 + length);
    at += 2 + length;
    const count = buf.readUInt32LE(at);
    at += 4;
    const postings = new Postings();
    postings.pairs = new Uint32Array(Math.max(2, count * 2));
    for (let i = 0; i < count * 2; i++, at += 4) postings.pairs[i] = buf.readUInt32LE(at);
    postings.length = count;
    terms.set(term, postings);
  }
  if (at !== buf.byteLength) throw new Error("a lexical index file of the wrong length");
  return { terms, ids, docLengths, totalLength };
}
