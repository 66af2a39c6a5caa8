/**
 * `Retry-After` (RFC 9110 §10.2.3): a platform that answers 429 or 503 says when to come back,
 * either in seconds or as an HTTP date. Connectors wait exactly that long instead of their own
 * backoff; the value is bounded so that a hostile or broken peer cannot park a connector for days.
 */

/** The longest wait a server can impose on a connector (and the cap of Bayeux `advice.interval`). */
export const MAX_SERVER_DELAY_MS = 60 * 60_000;

/** IMF-fixdate, the only HTTP date form servers still send: `Sun, 06 Nov 1994 08:49:37 GMT`. */
const HTTP_DATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** The wait a `Retry-After` value asks for, in ms from `now`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d{1,10}$/.test(text)) return Math.min(Number(text) * 1000, MAX_SERVER_DELAY_MS);
  if (!HTTP_DATE.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.min(Math.max(0, at - now), MAX_SERVER_DELAY_MS);
}

/** The wait asked for by an answer that tells the client to slow down (429) or come back later (503). */
export function retryAfterOf(
  response: { status: number; headers: { get(name: string): string | null } },
  now: number,
): number | undefined {
  if (response.status !== 429 && response.status !== 503) return undefined;
  return parseRetryAfter(response.headers.get("retry-after"), now);
}

/** A server-advised delay in ms (Bayeux `advice.interval`), bounded; undefined when not a number. */
export function boundedServerDelay(value: unknown): number | undefined {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) return undefined;
  return Math.min(Math.round(value), MAX_SERVER_DELAY_MS);
}
