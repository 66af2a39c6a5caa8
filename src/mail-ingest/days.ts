/**
 * Calendar days in a time zone. A message belongs to the day of its `internalDate` (when the
 * provider received it) in the chosen zone, UTC by default; the command covers the last N such days.
 */
export const DAY_MS = 86_400_000;

const formats = new Map<string, Intl.DateTimeFormat>();

function format(timeZone: string): Intl.DateTimeFormat {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
      timeZoneName: "longOffset",
    });
    formats.set(timeZone, f);
  }
  return f;
}

export function isTimeZone(timeZone: string): boolean {
  try {
    format(timeZone);
    return true;
  } catch {
    return false;
  }
}

function parts(epochMs: number, timeZone: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const p of format(timeZone).formatToParts(epochMs)) found[p.type] = p.value;
  return found;
}

/** `YYYY-MM-DD` of an instant in a zone. */
export function dayOf(epochMs: number, timeZone: string): string {
  const p = parts(epochMs, timeZone);
  return `${p.year}-${p.month}-${p.day}`;
}

/** `YYYY-MM-DD HH:MM:SS +HH:MM` of an instant in a zone. */
export function timeOf(epochMs: number, timeZone: string): string {
  const p = parts(epochMs, timeZone);
  // "GMT+01:00", or plain "GMT" at offset zero.
  const offset = (p.timeZoneName ?? "").replace(/^GMT/, "") || "+00:00";
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second} ${offset}`;
}

/** Whether `value` is a real calendar date written `YYYY-MM-DD`. */
export function isDay(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  return new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);
}

/** The `count` days ending with `until` (included), oldest first. */
export function lastDays(until: string, count: number): string[] {
  const end = Date.parse(`${until}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) =>
    new Date(end - (count - 1 - i) * DAY_MS).toISOString().slice(0, 10),
  );
}

/**
 * Epoch seconds for the search's `after:` and `before:` around `days` (oldest first). Local days
 * start up to 14 hours before and 12 after UTC midnight, so the window is one UTC day wider on each
 * side; messages outside the days themselves are dropped after reading, by their local day.
 */
export function searchWindow(days: string[]): { after: number; before: number } {
  const first = Date.parse(`${days[0]}T00:00:00Z`);
  const last = Date.parse(`${days[days.length - 1]}T00:00:00Z`);
  return { after: (first - DAY_MS) / 1000, before: (last + 2 * DAY_MS) / 1000 };
}
