/** LoCoMo's session stamps ("1:56 pm on 8 May, 2023") as dates, read as UTC. */

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const STAMP = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})$/i;

/** The stamp's instant, or undefined when it is neither LoCoMo's form nor an ISO date. */
export function parseSessionStamp(stamp: unknown): Date | undefined {
  if (typeof stamp !== "string") return undefined;
  const m = stamp.trim().match(STAMP);
  if (m) {
    const [, h, min, half, day, monthName, year] = m;
    const month = MONTHS.indexOf(monthName!.slice(0, 3).toLowerCase());
    if (month < 0) return undefined;
    const hour = (Number(h) % 12) + (half!.toLowerCase() === "pm" ? 12 : 0);
    return new Date(Date.UTC(Number(year), month, Number(day), hour, Number(min)));
  }
  if (/^\d{4}-\d{2}-\d{2}/.test(stamp.trim())) {
    const date = new Date(stamp.trim());
    return Number.isNaN(date.getTime()) ? undefined : date;
  }
  return undefined;
}
