/**
 * The deterministic entity recogniser (docs/entities.md): names of people, organisations and
 * places, and identifiers, found in a text without a model or a network. No name list: a name is
 * a run of capitalised words. A run at a sentence's start may be any word ("Guess what…"), so it
 * is only a *weak* mention: it counts once the same name is seen *strong* somewhere (mid-sentence,
 * after an honorific, with a company suffix, or in a typed field: entry-mentions.ts), which the
 * entity index decides across the tenant's entries (entity-index.ts).
 */
import { STOP_WORDS } from "../../lexical/stop-words.ts";

export type EntityKind = "name" | "person" | "organisation" | "email" | "domain" | "id";

export interface Mention {
  /** The normalised key the index groups by: lower case, accents folded, spaces single. */
  key: string;
  /** The mention as written (trimmed, the possessive dropped). */
  text: string;
  kind: EntityKind;
  /** Not at a sentence's start (or marked as a name by an honorific, a suffix, a typed field). */
  strong: boolean;
}

/** A name longer than this is prose, not a name. */
const MAX_NAME_WORDS = 5;
/** Names and identifiers longer than this (characters) are not kept. */
export const MAX_ENTITY_CHARS = 128;

const HONORIFICS = new Set(["mr", "mrs", "ms", "miss", "dr", "prof", "sir", "madam", "mx"]);
const ORG_SUFFIXES = new Set([
  "inc",
  "ltd",
  "llc",
  "gmbh",
  "ag",
  "plc",
  "corp",
  "co",
  "sa",
  "sas",
  "bv",
  "oy",
  "ab",
  "pty",
  "limited",
  "incorporated",
  "corporation",
]);
/** Lower-case words a name may hold between capitalised ones ("Bank of America", "Tom & Jerry"). */
const CONNECTORS = new Set(["of", "de", "du", "da", "van", "von", "der", "del", "la", "le", "&", "and"]);
/** Capitalised words that are time, not names (the time expressions are another module's). */
const CALENDAR = new Set(
  `monday tuesday wednesday thursday friday saturday sunday january february march april may june
  july august september october november december today tomorrow yesterday`.split(/\s+/),
);
/** Exclamations and discourse words that open sentences capitalised. */
const OPENERS = new Set(
  `hi hey hello oh wow yes yeah no nope ok okay thanks thank sure great cool nice well so and but
  also just really please sorry congrats congratulations guess confession honestly anyway`.split(/\s+/),
);

const TLDS =
  "com|org|net|io|co|dev|ai|app|de|uk|fr|es|it|nl|eu|us|ca|au|ch|se|no|fi|dk|be|at|pl|pt|jp|cn|in|br|info|biz|xyz|tech|cloud";
const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;
const DOMAIN = new RegExp(`\\b(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+(?:${TLDS})\\b`, "giu");
/** `cus_Nf2…`, `in_1Mx…`, `sub_…`: a short lower-case prefix, an underscore, a long token. */
const PREFIXED_ID = /\b[a-z]{2,10}_[A-Za-z0-9]{6,64}\b/g;
/** `INV-0042`, `ACME-2024-001`, `JIRA-123`: capitals, a dash, digits. */
const CODE_ID = /\b[A-Z][A-Z0-9]{1,11}(?:-[A-Z0-9]+)*-\d{2,12}\b/g;
/** `#4821` (a ticket, an order). */
const HASH_ID = /(?<![\p{L}\p{N}&])#\d{2,12}\b/gu;

/** Lower case, accents of Latin letters folded, inner spaces single: the key a mention groups by. */
export function entityKey(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .trim();
}

/** Identifiers in a text: e-mail addresses, domains, prefixed ids, codes, `#` numbers. Always strong. */
export function identifiersIn(text: string): Mention[] {
  const found: Mention[] = [];
  const seen = new Set<string>();
  const push = (raw: string, kind: EntityKind) => {
    const written = raw.replace(/[.]+$/, "");
    const key = entityKey(written);
    if (written.length > MAX_ENTITY_CHARS || seen.has(key)) return;
    seen.add(key);
    found.push({ key, text: written, kind, strong: true });
  };
  // Each pattern needs its one character: most texts skip most of them at the cost of a scan.
  const emails = text.includes("@") ? (text.match(EMAIL) ?? []) : [];
  for (const email of emails) push(email, "email");
  // A domain inside an e-mail address is that address's, not a mention of its own.
  const rest = emails.reduce((t, email) => t.replace(email, " "), text);
  const all = (pattern: RegExp, mark: string) => (rest.includes(mark) ? (rest.match(pattern) ?? []) : []);
  for (const domain of all(DOMAIN, ".")) push(domain, "domain");
  for (const id of all(PREFIXED_ID, "_")) push(id, "id");
  for (const id of all(CODE_ID, "-")) push(id, "id");
  for (const id of all(HASH_ID, "#")) push(id, "id");
  return found;
}

interface Word {
  text: string;
  /** A sentence starts at this word. */
  start: boolean;
  /** Punctuation follows the word, so a name cannot run on past it. */
  stop: boolean;
}

/** Words as written, each marked when a sentence starts at it or a name must end after it. */
const SENTENCE_ENDS = new Set([".", "!", "?", ":", ";", "\n"]);
const PHRASE_ENDS = new Set([",", "(", ")", '"', "“", "”"]);
const TOKENS = /[\p{L}\p{M}\p{N}&_@#][\p{L}\p{M}\p{N}'’._@-]*|[.!?:;,()"“”\n]/gu;

function wordsOf(text: string): Word[] {
  const words: Word[] = [];
  let start = true;
  for (const match of text.matchAll(TOKENS)) {
    const token = match[0];
    if (SENTENCE_ENDS.has(token)) {
      start = true;
      if (words.length) words[words.length - 1]!.stop = true;
      continue;
    }
    if (PHRASE_ENDS.has(token)) {
      // A quote or a bracket opens a phrase whose first word is capitalised anyway.
      if (token !== "," && token !== ")") start = true;
      if (words.length) words[words.length - 1]!.stop = true;
      continue;
    }
    // A word ending with a full stop ends its sentence ("in Boston. Then"), an abbreviation aside.
    const dotted = token.endsWith(".");
    const bare = dotted ? token.replace(/\.+$/, "") : token;
    words.push({ text: bare, start, stop: dotted });
    start = dotted && !HONORIFICS.has(bare.toLowerCase());
  }
  return words;
}

/** A capitalised word of letters (an identifier's digits, `_` or `@` make it no name). */
const capitalised = (word: string) => {
  // Most words are not: a first character its own lower case (a lower-case letter, a digit) ends it cheaply.
  const first = word.charAt(0);
  if (first === first.toLowerCase()) return false;
  return /^\p{Lu}[\p{L}\p{M}'’.-]*$/u.test(word) && /\p{Ll}|^\p{Lu}{2,}$/u.test(word);
};
const possessiveless = (word: string) => word.replace(/['’]s$/u, "").replace(/['’]$/u, "");

/**
 * Names in a text: runs of capitalised words (with connectors between them), a possessive
 * dropped, at most MAX_NAME_WORDS. Function words, calendar words and openers alone are not
 * names. An honorific before a name makes it a person's, a company suffix an organisation's, and
 * both make it strong even at a sentence's start.
 */
export function namesIn(text: string, opts: { parts?: boolean } = {}): Mention[] {
  const { names, parts } = namesAndParts(text, opts.parts === true);
  return [...names, ...parts];
}

/** The names of a text, and (with `withParts`) the weak shorter runs inside them, apart. */
export function namesAndParts(text: string, withParts: boolean): { names: Mention[]; parts: Mention[] } {
  const words = wordsOf(text);
  const found: Mention[] = [];
  const parts: Mention[] = [];
  let i = 0;
  while (i < words.length) {
    const first = words[i]!;
    if (!capitalised(first.text)) {
      i++;
      continue;
    }
    const run: Word[] = [first];
    let j = i + 1;
    while (j < words.length && run.length < MAX_NAME_WORDS && !run[run.length - 1]!.stop) {
      const next = words[j]!;
      if (/['’]s$/u.test(run[run.length - 1]!.text)) break;
      if (capitalised(next.text)) run.push(next);
      else if (CONNECTORS.has(next.text.toLowerCase()) && words[j + 1] && capitalised(words[j + 1]!.text))
        run.push(next);
      else break;
      j++;
    }
    const mention = mentionOf(run, words[i - 1]);
    if (mention) {
      found.push(mention);
      if (withParts) parts.push(...partsOf(mention));
    }
    i = j;
  }
  return { names: found, parts };
}

function mentionOf(run: Word[], before: Word | undefined): Mention | undefined {
  const texts = run.map((w) => w.text);
  texts[texts.length - 1] = possessiveless(texts[texts.length - 1]!);
  const honorific = HONORIFICS.has(texts[0]!.toLowerCase());
  if (honorific) texts.shift();
  const last = texts[texts.length - 1]?.toLowerCase().replace(/\.$/, "");
  const organisation = texts.length > 1 && last !== undefined && ORG_SUFFIXES.has(last);
  if (organisation) texts.pop();
  // Leading function words and openers are the sentence's, not the name's ("The Acme deal").
  while (texts.length && !honorific && isCommonWord(texts[0]!)) texts.shift();
  if (texts.length === 0) return undefined;
  if (texts.length === 1 && isCommonWord(texts[0]!)) return undefined;
  const written = texts.join(" ");
  if (written.length > MAX_ENTITY_CHARS || !/\p{L}/u.test(written)) return undefined;
  const afterHonorific = before !== undefined && HONORIFICS.has(before.text.toLowerCase());
  const person = honorific || afterHonorific;
  const start = run[0]!.start && !honorific;
  return {
    key: entityKey(written),
    text: written,
    kind: person ? "person" : organisation ? "organisation" : "name",
    strong: !start || person || organisation,
  };
}

/**
 * The shorter runs inside a name, weak: "Deal Brightwave Logistics" holds "Brightwave Logistics",
 * which counts where it is known on its own (a customer's name in a typed field).
 */
function partsOf(mention: Mention): Mention[] {
  const words = mention.text.split(" ");
  const parts: Mention[] = [];
  for (let n = words.length - 1; n >= 1; n--)
    for (let i = 0; i + n <= words.length; i++) {
      const part = words.slice(i, i + n);
      if (isCommonWord(part[0]!) || CONNECTORS.has(part[part.length - 1]!.toLowerCase())) continue;
      const written = part.join(" ");
      parts.push({ key: entityKey(written), text: written, kind: "name", strong: false });
    }
  return parts;
}

function isCommonWord(word: string): boolean {
  const lower = possessiveless(word).toLowerCase();
  return STOP_WORDS.has(lower) || CALENDAR.has(lower) || OPENERS.has(lower) || HONORIFICS.has(lower);
}

/** Every mention of a text: identifiers, then names (one per key, the strong one kept). */
export function mentionsIn(text: string, opts: { parts?: boolean } = {}): Mention[] {
  return dedupe([...identifiersIn(text), ...namesIn(text, opts)]);
}

/** One mention per key, strong if any of them is. */
export function dedupe(mentions: readonly Mention[]): Mention[] {
  const byKey = new Map<string, Mention>();
  for (const m of mentions) {
    const seen = byKey.get(m.key);
    if (!seen) byKey.set(m.key, m);
    else if (m.strong && !seen.strong)
      byKey.set(m.key, { ...m, kind: seen.kind === "name" ? m.kind : seen.kind });
  }
  return [...byKey.values()];
}
