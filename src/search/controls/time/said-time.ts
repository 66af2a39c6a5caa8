import { LruCache } from "../../../embedding/lru-cache.ts";
import type { Span } from "./calendar.ts";
import { readTime } from "./time-expressions.ts";

/**
 * The time an entry's own words name, read as a query's are but against the entry's `valid_from`:
 * "I flew to Lisbon last month", written on 20 September, is about August. Only a bounded span
 * counts ("since June" names no period), and only the first 500 characters are read: a statement
 * of when comes early. Content and valid time do not change under an id, so each reading is kept
 * (an LRU of 50,000, shared by the process's tenants).
 */
const READ_CHARS = 500;
const said = new LruCache<string, Span | null>(50_000);

export function saidTime(id: string, content: string, validFrom: string): Span | undefined {
  const key = `${id} ${validFrom}`;
  let span = said.get(key);
  if (span === undefined) {
    const window = readTime(content.slice(0, READ_CHARS), Date.parse(validFrom)).window;
    span = window && Number.isFinite(window.from) && Number.isFinite(window.to) ? window : null;
    said.set(key, span);
  }
  return span ?? undefined;
}
