/**
 * A deterministic guard in front of every automatic merge: two texts that differ in an identifier,
 * a number or a date, in a negation, or in plan against done, say different things however many
 * words they share ("Invoice INV-1041 paid" is not "Invoice INV-1042 paid"; a cosine of 0.95 is
 * exactly where replays of automatic merges found false merges). Measured on the labelled set of
 * bench/eval/merge-set.ts (docs/memory.md, "Merging near-duplicates"): the veto takes the hard
 * negatives out of the merge band and costs no true duplicate that keeps its figures.
 */

/** A token holding a digit: an amount, a date, an invoice or ticket number, a version. */
const FIGURE = /[a-z]*\d[\w.,:/-]*/gi;
/** Month and weekday names: dates written in words. */
const DATE_WORDS =
  /\b(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t(ember)?)?|oct(ober)?|nov(ember)?|dec(ember)?|monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|tomorrow|yesterday)\b/gi;
const NEGATION =
  /\b(not|no|never|none|nobody|nothing|without|cannot|n't|isn't|wasn't|don't|doesn't|didn't|won't|hasn't|haven't|aren't|weren't|can't|couldn't|shouldn't|declined|rejected|cancel(l)?ed)\b|n't\b/gi;
const PLAN =
  /\b(will|shall|plan to|plans to|planned|planning|intend|intends|going to|to be|scheduled|upcoming|next|proposed|should)\b/gi;
const DONE =
  /\b(done|did|completed|finished|shipped|sent|paid|delivered|closed|resolved|merged|released|signed|was|were|has been|have been)\b/gi;

export type VetoReason = "figures" | "dates" | "names" | "negation" | "plan_vs_done";

/** A capitalised word: a name, a product, a place (or a sentence's first word, see `names`). */
const CAPITALISED = /\b[A-Z][\w-]*/g;
const WORD = /[\w-]+/g;

/** Why the two texts must not be merged automatically, or undefined when nothing vetoes. */
export function mergeVeto(a: string, b: string): VetoReason | undefined {
  if (!sameSet(figures(a), figures(b))) return "figures";
  if (!sameSet(matches(a, DATE_WORDS), matches(b, DATE_WORDS))) return "dates";
  if (!namesMet(a, b) || !namesMet(b, a)) return "names";
  if (matches(a, NEGATION).size > 0 !== matches(b, NEGATION).size > 0) return "negation";
  const planA = matches(a, PLAN).size > 0;
  const planB = matches(b, PLAN).size > 0;
  const doneA = isDone(a);
  const doneB = isDone(b);
  if ((planA && !doneA && doneB && !planB) || (planB && !doneB && doneA && !planA)) return "plan_vs_done";
  return undefined;
}

/** A done marker, or a verb in the past ("renewed"; "planned" and "scheduled" are plans). */
function isDone(text: string): boolean {
  if (matches(text, DONE).size > 0) return true;
  const plans = matches(text, PLAN);
  return [...text.matchAll(/\b[a-z]{3,}ed\b/gi)].some((m) => !plans.has(m[0].toLowerCase()));
}

/** Figures compared without their separators and trailing punctuation: "1,200.00" is "1200.00". */
function figures(text: string): Set<string> {
  const found = new Set<string>();
  for (const m of text.matchAll(FIGURE))
    found.add(
      m[0]
        .toLowerCase()
        .replace(/[.,:]+$/, "")
        .replace(/,/g, ""),
    );
  return found;
}

/**
 * Every capitalised word of `a` is a word of `b`, whatever its case: another person or customer is
 * another fact, while a sentence's first word ("In June …", "With Alice …") is met by its lower case.
 */
function namesMet(a: string, b: string): boolean {
  const wordsOfB = new Set([...b.matchAll(WORD)].map((m) => m[0].toLowerCase()));
  for (const m of a.matchAll(CAPITALISED)) if (!wordsOfB.has(m[0].toLowerCase())) return false;
  return true;
}

function matches(text: string, pattern: RegExp): Set<string> {
  return new Set([...text.matchAll(pattern)].map((m) => m[0].toLowerCase()));
}

function sameSet(a: Set<string>, b: Set<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}
