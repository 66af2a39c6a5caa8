/**
 * Byte chunks joined into one array: a body read in pieces, an NDJSON line split across reads,
 * a forwarded body sent in parts. One chunk is answered as it is (no copy); `size` is their total
 * length when the caller already counted it.
 */
export function concatBytes(
  chunks: readonly Uint8Array[],
  size = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0),
): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
