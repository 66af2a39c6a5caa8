/**
 * How an entry's embedding is stored: keyed by the entry's sequence number, so that new vectors
 * are appended at the end of the B-tree instead of landing on random pages (keyed by the random
 * SHA-8 id, each 1.5 KiB vector dirtied a page of its own, and commits were twice as slow). The
 * value carries the id, so a scan of the vectors knows whose they are without another lookup.
 *
 *   value = id (8 ASCII bytes) ++ float32 components (little-endian, as in memory)
 */
const ID_BYTES = 8;

export function encodeVectorRecord(id: string, vec: Float32Array): Buffer {
  const out = Buffer.allocUnsafe(ID_BYTES + vec.byteLength);
  out.write(id, 0, ID_BYTES, "latin1");
  out.set(new Uint8Array(vec.buffer, vec.byteOffset, vec.byteLength), ID_BYTES);
  return out;
}

/** The id of a record (a few bytes: no vector is copied). */
export function vectorRecordId(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, ID_BYTES).toString("latin1");
}

/** The vector of a record, copied: the bytes LMDB hands out are valid only until the next read. */
export function vectorRecordVector(bytes: Uint8Array): Float32Array {
  const copy = new Float32Array((bytes.byteLength - ID_BYTES) / 4);
  new Uint8Array(copy.buffer).set(bytes.subarray(ID_BYTES));
  return copy;
}

/** The number of components of a record (its length alone: nothing is copied). */
export function vectorRecordDims(bytes: Uint8Array): number {
  return (bytes.byteLength - ID_BYTES) / 4;
}
