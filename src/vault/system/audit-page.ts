import type { Key } from "lmdb";

/** One page of an audit log, newest first; `nextBefore` continues it. */
export interface AuditPage<T> {
  items: T[];
  nextBefore: number | undefined;
}

/** A page from `limit + 1` rows read newest first: the extra row says there is more; `seqOf` reads a key's sequence. */
export function pageOf<T, K extends Key>(
  rows: Array<{ key: K; value: T }>,
  limit: number,
  seqOf: (key: K) => number,
): AuditPage<T> {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(({ value }) => value),
    nextBefore: rows.length > limit && last ? seqOf(last.key) : undefined,
  };
}
