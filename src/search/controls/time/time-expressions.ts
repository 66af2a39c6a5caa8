import {
  addMonths,
  DAY_MS,
  daySpan,
  dayStart,
  isRealDay,
  latestDay,
  latestMonth,
  monthOf,
  monthSpan,
  type Span,
  WEEKDAY_NAMES,
  weekSpan,
  yearSpan,
} from "./calendar.ts";

/**
 * The time a query names, read without a model: a valid-time window from its one time expression
 * (the longest, the first of equals), and whether it asks about now or about the past. Everything
 * is resolved against a reference time (the search's `valid_at`, else now), in UTC; an expression
 * this reader does not know, or a date that does not exist, is simply words.
 * docs/embedding-and-search.md ("Time in the query") lists what is understood.
 */
export interface TimeReading {
  /** [from, to) in epoch ms; ±Infinity for an open side ("before 2021", "since June"). */
  window?: { from: number; to: number; expression: string };
  /** "current", "now", "still", "these days"…: entries valid at the reference. */
  current: boolean;
  /** "used to", "previously", "when did…", or a window before the reference. */
  past: boolean;
  /** The query without the window's words. */
  rest: string;
}

const MONTH =
  "(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\\.?";
const DAY = "(\\d{1,2})(?:st|nd|rd|th)?";
const YEAR = "((?:19|20)\\d\\d)";
const COUNT =
  "(\\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|(?:a )?couple(?: of)?|(?:a )?few)";
const UNIT = "(day|week|month|year)s?";
const WEEKDAY = `(${WEEKDAY_NAMES.join("|")})s?`;
/** How a window relates to the date it names: within it, from it on, before it, up to its end. */
const RELATION =
  "(?:(since|after|before|until|till|up to|by|prior to|in|during|on|of|from|throughout|around)\\s+)?";
/** The cheap tests of the atoms (Atom.needs). */
const MONTH_NEEDS = /\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)/i;
const YEAR_NEEDS = /\b(?:19|20)\d\d\b/;
const ISO_NEEDS = /\d{4}-\d\d/;
const UNIT_NEEDS = /day|week|month|year/i;

/** After a day without a year: not a year (a 29 February of a year without one is no date at all). */
const NO_YEAR = "(?!,?\\s+(?:19|20)\\d\\d)";
const PART = "(?:(early|mid|late)[\\s-]+)?";

const COUNTS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
};

function countOf(word: string): number {
  const w = word.toLowerCase();
  if (/couple/.test(w)) return 2;
  if (/few/.test(w)) return 3;
  return COUNTS[w] ?? Number.parseInt(w, 10);
}

interface Found {
  span: Span;
  start: number;
  end: number;
}

/** A date atom: its pattern (groups after the relation's) and its span, or undefined (no such date). */
interface Atom {
  pattern: string;
  /** A cheap test a text passes when it may hold this atom: the full pattern runs only then. */
  needs: RegExp;
  /**
   * The span the groups name; `qualified` says a relation or part word stood before it. Undefined:
   * not a date here; null: a date that does not exist, whose words no shorter expression may take.
   */
  span(g: string[], ref: number, qualified: boolean): Span | null | undefined;
}

const yearOf = (s: string) => Number.parseInt(s, 10);
const dayNum = (s: string) => Number.parseInt(s, 10);

/** A date written whole; null when there is no such day (31 April), which leaves its words as words. */
function exactDay(year: number, month: number, day: number): Span | null {
  return month >= 0 && isRealDay(year, month, day) ? daySpan(year, month, day) : null;
}

const VERB_MONTHS = new Set(["may", "mar", "march"]);

function dayWithoutYear(month: string, day: string, ref: number, qualified: boolean): Span | undefined {
  if (!qualified && VERB_MONTHS.has(month.replace(/\.$/, ""))) return undefined;
  return latestDay(monthOf(month), dayNum(day), ref);
}

/**
 * A part of a month or a year: early (days 1–10, or January–April), mid (11–20, May–August),
 * late (the rest).
 */
function partOf(span: Span, part: string | undefined): Span {
  if (!part) return span;
  const i = part === "early" ? 0 : part === "mid" ? 1 : 2;
  const d = new Date(span.from);
  const [y, m] = [d.getUTCFullYear(), d.getUTCMonth()];
  if (span.to - span.from > 32 * DAY_MS)
    return { from: Date.UTC(y, 4 * i, 1), to: Date.UTC(y, 4 * i + 4, 1) };
  return { from: Date.UTC(y, m, 1 + 10 * i), to: i === 2 ? span.to : Date.UTC(y, m, 11 + 10 * i) };
}

/** Dates that name their own place in the calendar: absolute or relative to the reference. */
const DATE_ATOMS: Atom[] = [
  {
    // 2023-05-07, 2023-05, with an optional time of day
    needs: ISO_NEEDS,
    pattern: `(\\d{4})-(\\d{2})(?:-(\\d{2}))?(?:t[\\d:.]+(?:z|[+-]\\d{2}:?\\d{2})?)?`,
    span: ([y, m, d]) => {
      const month = Number.parseInt(m!, 10) - 1;
      if (month < 0 || month > 11) return null;
      return d ? exactDay(yearOf(y!), month, dayNum(d)) : monthSpan(yearOf(y!), month);
    },
  },
  {
    needs: MONTH_NEEDS,
    pattern: `${DAY}\\s+(?:of\\s+)?${MONTH},?\\s+${YEAR}`,
    span: ([d, m, y]) => exactDay(yearOf(y!), monthOf(m!), dayNum(d!)),
  },
  {
    needs: MONTH_NEEDS,
    pattern: `${MONTH}\\s+${DAY},?\\s+${YEAR}`,
    span: ([m, d, y]) => exactDay(yearOf(y!), monthOf(m!), dayNum(d!)),
  },
  {
    needs: MONTH_NEEDS,
    pattern: `${PART}${MONTH},?\\s+(?:of\\s+)?${YEAR}`,
    span: ([p, m, y]) => partOf(monthSpan(yearOf(y!), monthOf(m!)), p),
  },
  // "7 May", "June 5th": the latest such day by the reference; "may" and "march" need a word before.
  {
    needs: MONTH_NEEDS,
    pattern: `${DAY}\\s+(?:of\\s+)?${MONTH}${NO_YEAR}`,
    span: ([d, m], ref, qualified) => dayWithoutYear(m!, d!, ref, qualified),
  },
  {
    needs: MONTH_NEEDS,
    pattern: `${MONTH}\\s+${DAY}(?![\\d:])${NO_YEAR}`,
    span: ([m, d], ref, qualified) => dayWithoutYear(m!, d!, ref, qualified),
  },
  {
    // "last May", "this June", "early March", "in May": a month without a year needs a word before
    // it, since "may", "march", "june" and "august" are also verbs and names.
    needs: MONTH_NEEDS,
    pattern: `(?:(last|this|next)\\s+)?${PART}${MONTH}`,
    span: ([which, p, m], ref, qualified) => {
      const month = monthOf(m!);
      if (!which && !p && !qualified) return undefined;
      const year = new Date(ref).getUTCFullYear();
      let span = latestMonth(month, ref, which === "last");
      if (which === "this") span = monthSpan(year, month);
      if (which === "next") span = monthSpan(month > new Date(ref).getUTCMonth() ? year : year + 1, month);
      return partOf(span, p);
    },
  },
  // "in 2023", "early 2022": a bare number is a year only after such a word.
  {
    needs: YEAR_NEEDS,
    pattern: `${PART}${YEAR}`,
    span: ([p, y], _ref, qualified) => (qualified || p ? partOf(yearSpan(yearOf(y!)), p) : undefined),
  },
];

/** Expressions relative to the reference that carry no relation word of their own. */
const RELATIVE_ATOMS: Atom[] = [
  { needs: /yesterday/i, pattern: "the day before yesterday", span: (_g, ref) => spanOfDay(ref, -2) },
  { needs: /yesterday|night/i, pattern: "(yesterday|last night)", span: (_g, ref) => spanOfDay(ref, -1) },
  {
    needs: /today|tonight|morning|afternoon|evening/i,
    pattern: "(today|tonight|this (?:morning|afternoon|evening))",
    span: (_g, ref) => spanOfDay(ref, 0),
  },
  {
    // "last week" is the calendar week before the reference's; "the past week" the 7 days up to it.
    needs: UNIT_NEEDS,
    pattern: "(?:the )?(this|last|past|previous|next) (week|weekend|month|year)",
    span: ([which, unit], ref) =>
      which === "past"
        ? { from: shift(ref, unit!, -1), to: ref }
        : calendarUnit(unit!, ref, which === "this" ? 0 : which === "next" ? 1 : -1, which === "this"),
  },
  {
    needs: /ago\b/i,
    pattern: `${COUNT} ${UNIT} ago`,
    span: ([n, unit], ref) => calendarUnit(unit!, ref, -countOf(n!), false),
  },
  {
    needs: UNIT_NEEDS,
    pattern: `(?:(?:in|over|during|within) )?(?:the )?(?:last|past) ${COUNT} ${UNIT}`,
    span: ([n, unit], ref) => ({ from: shift(ref, unit!, -countOf(n!)), to: ref }),
  },
  {
    needs: /recent|late/i,
    pattern: "(?:recently|lately|of late|in recent (?:days|weeks))",
    span: (_g, ref) => ({ from: ref - 30 * DAY_MS, to: ref }),
  },
  {
    needs: /(?:mon|tues|wednes|thurs|fri|satur|sun)day/i,
    pattern: `(?:(last|this) )?${WEEKDAY}`,
    span: ([which, name], ref) => weekdaySpan(WEEKDAY_NAMES.indexOf(name!), which, ref),
  },
];

function spanOfDay(ref: number, offset: number): Span {
  const from = dayStart(ref) + offset * DAY_MS;
  return { from, to: from + DAY_MS };
}

/** Moves `ms` by whole units: days and weeks as fixed lengths, months and years in the calendar. */
function shift(ms: number, unit: string, n: number): number {
  if (unit.startsWith("day")) return ms + n * DAY_MS;
  if (unit.startsWith("week")) return ms + n * 7 * DAY_MS;
  return addMonths(ms, unit.startsWith("month") ? n : 12 * n);
}

/**
 * The calendar day, ISO week, weekend (its Saturday and Sunday), month or year `n` units from the
 * reference's; "this …" ends at the reference.
 */
function calendarUnit(unit: string, ref: number, n: number, soFar: boolean): Span {
  const weekend = unit.startsWith("weekend");
  const at = shift(ref, weekend ? "week" : unit, n);
  const d = new Date(at);
  let span: Span;
  if (unit.startsWith("day")) span = spanOfDay(at, 0);
  else if (weekend) {
    const from = weekSpan(at).from + 5 * DAY_MS;
    return { from, to: from + 2 * DAY_MS };
  } else if (unit.startsWith("week")) span = weekSpan(at);
  else if (unit.startsWith("month")) span = monthSpan(d.getUTCFullYear(), d.getUTCMonth());
  else span = yearSpan(d.getUTCFullYear());
  return soFar ? { from: span.from, to: Math.min(span.to, ref) } : span;
}

/**
 * "on Monday": the latest Monday up to the reference's day; "last Monday": strictly before it;
 * "this Monday": the Monday of the reference's ISO week.
 */
function weekdaySpan(weekday: number, which: string | undefined, ref: number): Span {
  if (which === "this") return spanOfDay(weekSpan(ref).from + ((weekday + 6) % 7) * DAY_MS, 0);
  let back = (new Date(ref).getUTCDay() - weekday + 7) % 7;
  if (which === "last" && back === 0) back = 7;
  return spanOfDay(ref, -back);
}

/** A span under a relation word: "since X" from X on, "before X" up to its start, "until X" up to its end. */
function related(span: Span, relation: string | undefined): Span {
  switch (relation) {
    case "since":
      return { from: span.from, to: Number.POSITIVE_INFINITY };
    case "after":
      return { from: span.to, to: Number.POSITIVE_INFINITY };
    case "before":
    case "prior to":
      return { from: Number.NEGATIVE_INFINITY, to: span.from };
    case "until":
    case "till":
    case "up to":
    case "by":
      return { from: Number.NEGATIVE_INFINITY, to: span.to };
    default:
      return span;
  }
}

interface Rule {
  regex: RegExp;
  needs: RegExp[];
  read(m: RegExpExecArray, ref: number): Span | null | undefined;
}

const relationOf = (m: RegExpExecArray) => m[1]?.toLowerCase().replace(/\s+/g, " ");

function atomRule(atom: Atom, withRelation: boolean): Rule {
  const regex = new RegExp(
    `(?<![\\p{L}\\p{N}])${withRelation ? RELATION : "()"}${atom.pattern}(?![\\p{L}\\p{N}])`,
    "giu",
  );
  return {
    regex,
    needs: [atom.needs],
    read(m, ref) {
      const groups = m.slice(2).map((g) => g?.toLowerCase()) as string[];
      const span = atom.span(groups, ref, relationOf(m) !== undefined);
      return span ? related(span, relationOf(m)) : span;
    },
  };
}

/** "two weeks before 7 May 2023": a unit count away from an absolute date (the day it lands on). */
function shiftRule(atom: Atom): Rule {
  const regex = new RegExp(
    `(?<![\\p{L}\\p{N}])${COUNT} ${UNIT} (before|after) ${atom.pattern}(?![\\p{L}\\p{N}])`,
    "giu",
  );
  return {
    regex,
    needs: [/before|after/i, atom.needs],
    read(m, ref) {
      const [n, unit, way, ...rest] = m.slice(1).map((g) => g?.toLowerCase()) as string[];
      const anchor = atom.span(rest, ref, true);
      if (!anchor) return undefined;
      const at = shift(anchor.from, unit!, way === "before" ? -countOf(n!) : countOf(n!));
      return { from: at, to: at + DAY_MS };
    },
  };
}

/** "between March and May 2022": from the first's start to the second's end. */
function betweenRule(first: Atom, second: Atom): Rule {
  const regex = new RegExp(
    `(?<![\\p{L}\\p{N}])between ${first.pattern} and ${second.pattern}(?![\\p{L}\\p{N}])`,
    "giu",
  );
  const groupsOf = (p: string) => new RegExp(`${p}|`).exec("")!.length - 1;
  const split = groupsOf(first.pattern);
  return {
    regex,
    needs: [/between/i, first.needs, second.needs],
    read(m, ref) {
      const groups = m.slice(1).map((g) => g?.toLowerCase()) as string[];
      const b = second.span(groups.slice(split), ref, true);
      if (!b) return undefined;
      // "between March and May 2022": a first date without its year takes the second's.
      const a = first.span(groups.slice(0, split), b.to - 1, true);
      return a && a.from < b.to ? { from: a.from, to: b.to } : undefined;
    },
  };
}

const ABSOLUTE = DATE_ATOMS.slice(0, 4);
/** What "between … and …" joins: absolute dates, months and years (not a day without its year). */
const BETWEEN = [...ABSOLUTE, ...DATE_ATOMS.slice(6)];
const RULES: Rule[] = [
  ...DATE_ATOMS.map((a) => atomRule(a, true)),
  ...RELATIVE_ATOMS.map((a) => atomRule(a, true)),
  ...ABSOLUTE.map(shiftRule),
];
const BETWEEN_RULES = BETWEEN.flatMap((a) => BETWEEN.map((b) => betweenRule(a, b)));

const CURRENT =
  /(?<![\p{L}\p{N}])(currently|current|right now|now|nowadays|these days|at the moment|at present|presently|still|as of today|any ?more|up to date|latest)(?![\p{L}\p{N}])/iu;
const PAST =
  /(?<![\p{L}\p{N}])(used to|did .{1,80}? use to|previously|formerly|former|originally|at first|in the past|back then|at the time|before the|no longer|when (?:did|was|were|had)|what (?:date|day)|how long ago)(?![\p{L}\p{N}])/iu;

/**
 * The longest expression (the first of equals) that resolves. The words of a date that does not
 * exist ("31 April 2023") are not read again as a shorter one ("April 2023").
 */
function longest(query: string, ref: number): Found | undefined {
  const passes = new Map<RegExp, boolean>();
  const may = (r: RegExp) => {
    let seen = passes.get(r);
    if (seen === undefined) {
      seen = r.test(query);
      passes.set(r, seen);
    }
    return seen;
  };
  const rules = (/between/i.test(query) ? [...RULES, ...BETWEEN_RULES] : RULES).filter((r) =>
    r.needs.every(may),
  );
  const found: Found[] = [];
  const blocked: Array<[number, number]> = [];
  for (const rule of rules) {
    rule.regex.lastIndex = 0;
    for (let m = rule.regex.exec(query); m; m = rule.regex.exec(query)) {
      const [start, end] = [m.index, m.index + m[0].length];
      const span = rule.read(m, ref);
      if (span === null) blocked.push([start, end]);
      else if (span && span.from < span.to) found.push({ span, start, end });
    }
  }
  let best: Found | undefined;
  for (const f of found) {
    if (blocked.some(([s, e]) => s <= f.start && f.end <= e && e - s > f.end - f.start)) continue;
    const [length, bestLength] = [f.end - f.start, best ? best.end - best.start : -1];
    if (length > bestLength || (length === bestLength && f.start < best!.start)) best = f;
  }
  return best;
}

/** Reads the query's time expression and intent against `reference` (epoch ms). */
export function readTime(query: string, reference: number): TimeReading {
  const found = Number.isFinite(reference) ? longest(query, reference) : undefined;
  const pastWords = PAST.test(query);
  if (!found) return { current: !pastWords && CURRENT.test(query), past: pastWords, rest: query };
  const expression = query.slice(found.start, found.end).trim();
  const rest = `${query.slice(0, found.start)} ${query.slice(found.end)}`
    .replace(/\s+([?.!,;:])/g, "$1")
    .replace(/\s+/g, " ")
    .trim();
  const window = { ...found.span, expression };
  // A window that ends by the reference asks about the past, whatever else the query says.
  const past = pastWords || window.to < reference;
  return { window, current: !past && CURRENT.test(rest), past, rest };
}
