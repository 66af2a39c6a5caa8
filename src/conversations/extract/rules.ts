/**
 * The deterministic extractor's sentence rules, one list per kind. A rule matches one sentence and
 * says what it found as spans of it (match groups); rules.ts knows nothing of turns or times.
 */

import { isName, NAME } from "./names.ts";
import type { ExtractKind } from "./types.ts";

/** What a rule found in a sentence: every string is a span of the sentence. */
export interface Found {
  kind: ExtractKind;
  /** The holder is the speaker (`I`, `my`) or a named person (a span). */
  holder?: { speaker: true } | { name: string };
  attribute?: string;
  relation?: { subject: { speaker: true } | { name: string }; predicate: string; object: string };
  chosen?: string;
}

interface Rule {
  kind: ExtractKind;
  pattern: RegExp;
  /** Rules that name a negative themselves ("I don't like") are not refused for it. */
  negative?: boolean;
  found(m: RegExpMatchArray): Found | undefined;
}

/** A sentence that hedges or asks states nothing yet ("maybe we'll go with…", "if I move to…"). */
export const HEDGE =
  /\b(?:maybe|might|perhaps|possibly|if|unless|whether|wonder(?:ing)?|thinking (?:about|of)|considering|not sure|should we|could we|would you|do you|are you)\b/i;
/** A negated statement is not the statement ("we haven't decided", "I never moved to…"). */
export const NEGATION = /\b(?:not|never|no longer|n't|cannot)\b|n't\b/i;

const speaker = { speaker: true } as const;
const named = (name: string | undefined) => (name && isName(name) ? { name } : undefined);

const ACTIONS =
  "send|call|email|e-mail|finish|review|book|bring|share|write|pay|check|follow up|get back|prepare|deliver|submit|pick up|draft|update|schedule|order|fix|ship|set up|sort out|look into|confirm|forward|text|ring|organise|organize|arrange|handle|cover|buy|return|reply";
const RELATIVES =
  "daughter|son|wife|husband|partner|sister|brother|mother|mum|mom|father|dad|dog|cat|boss|manager|girlfriend|boyfriend";
const ROLES = "CEO|CTO|CFO|COO|founder|co-founder|manager|head|director|owner|president|lead|chair";
const EMPLOYMENT = /^(?:works? (?:at|for)|joined|(?:has|have) joined)$/;
const RELATIONS = [
  "works at",
  "works for",
  "joined",
  "has joined",
  `is the (?:${ROLES}) of`,
  "founded",
  "co-founded",
  "runs",
  "manages",
  "is married to",
  "reports to",
  "is (?:a client|a customer|a partner|an investor|an advisor|a supplier) (?:of|to)",
  "is the (?:sister|brother|daughter|son|wife|husband|mother|father|cousin|friend|partner) of",
  "is friends with",
  "partnered with",
  "acquired",
  "invested in",
  "is engaged to",
].join("|");

const rx = (source: string, flags = "u") => new RegExp(source, flags);

const PREFERENCE: Rule[] = [
  {
    kind: "preference",
    negative: true,
    pattern: rx(
      String.raw`\b[Ii](?:'d| would)? (?:really |much |strongly |definitely |actually |totally |absolutely )?(prefer|love|enjoy|adore|hate|dislike|can't stand|cannot stand|don't like|do not like|like) (?!to (?:book|ask|know|order|schedule|make|talk|say|see|get)\b)\S`,
    ),
    found: (m) =>
      /^like$/i.test(m[1] ?? "") && /\b[Ii](?:'d| would) like\b/.test(m[0])
        ? undefined
        : {
            kind: "preference",
            holder: speaker,
          },
  },
  {
    kind: "preference",
    pattern: rx(String.raw`\b[Ii]'d (?:much )?rather \S`),
    found: () => ({ kind: "preference", holder: speaker }),
  },
  {
    kind: "preference",
    pattern: rx(String.raw`\b[Mm]y (?:absolute |all-time )?favou?rite ([a-z]+(?: [a-z]+)?) (?:is|are) \S`),
    found: (m) => ({ kind: "preference", holder: speaker, attribute: `favourite ${m[1]!.toLowerCase()}` }),
  },
];

const PERSONAL: Rule[] = [
  {
    kind: "personal",
    pattern: rx(
      String.raw`\b(?:[Ii](?: (?:just|recently|finally|now))? (?:moved|relocated)(?: back)? to|[Ii](?: now| currently| still)? live in|[Ii]'m (?:now )?(?:living|based) in|[Ww]e(?: just| recently)? moved to) (${NAME})`,
    ),
    found: () => ({ kind: "personal", holder: speaker, attribute: "lives in" }),
  },
  {
    kind: "personal",
    pattern: rx(
      String.raw`\b(${NAME}) (?:(?:just|recently|finally) )?(?:moved|relocated|has moved)(?: back)? to (${NAME})`,
    ),
    found: (m) => residence(m[1]),
  },
  {
    kind: "personal",
    pattern: rx(String.raw`\b(${NAME}) (?:now |still )?lives in (${NAME})`),
    found: (m) => residence(m[1]),
  },
  {
    kind: "personal",
    pattern: rx(String.raw`\b[Mm]y (${RELATIVES})(?:'s name)? is (?:called |named )?(${NAME})`),
    found: (m) => ({ kind: "personal", holder: speaker, attribute: `${m[1]!.toLowerCase()} name` }),
  },
  {
    kind: "personal",
    pattern: rx(String.raw`\b[Mm]y (${RELATIVES}) is (?:now )?(\d{1,3})\b`),
    found: (m) => ({ kind: "personal", holder: speaker, attribute: `${m[1]!.toLowerCase()} age` }),
  },
  {
    kind: "personal",
    pattern: rx(String.raw`\b[Ii] (?:now )?work as an? [a-z]`),
    found: () => ({ kind: "personal", holder: speaker, attribute: "occupation" }),
  },
  {
    kind: "personal",
    pattern: rx(String.raw`\b[Mm]y name is (${NAME})`),
    found: () => ({ kind: "personal", holder: speaker, attribute: "name" }),
  },
  {
    kind: "personal",
    pattern: rx(String.raw`\b[Mm]y birthday is (?:on )?\S`),
    found: () => ({ kind: "personal", holder: speaker, attribute: "birthday" }),
  },
  {
    kind: "personal",
    pattern: rx(
      String.raw`\b[Ii]'m (?:a )?(?:vegetarian|vegan|pescatarian|allergic to|lactose intolerant)\b`,
    ),
    found: () => ({ kind: "personal", holder: speaker }),
  },
];

const DECISION: Rule[] = [
  {
    kind: "decision",
    pattern: rx(
      String.raw`\b(?:[Ww]e|[Ii]|[Tt]hey|[Tt]he team)(?:'ve| have)? (?:finally |just |all )?(?:decided|agreed) (?:to |that |on |against )?\S`,
    ),
    found: () => ({ kind: "decision" }),
  },
  {
    kind: "decision",
    pattern: rx(
      String.raw`\b(?:[Ll]et's go|[Ww]e(?:'re| are) going|[Ww]e(?:'ll| will) go) with (.+?)[.!;]*$`,
    ),
    found: (m) => ({ kind: "decision", chosen: m[1] }),
  },
  {
    kind: "decision",
    pattern: rx(String.raw`\b[Ll]et's (?:use|pick|choose) (.+?)[.!;]*$`),
    found: (m) => ({ kind: "decision", chosen: m[1] }),
  },
  {
    kind: "decision",
    pattern: rx(String.raw`\b[Tt]he (?:final )?decision is (?:to )?\S`),
    found: () => ({ kind: "decision" }),
  },
];

const COMMITMENT: Rule[] = [
  {
    kind: "commitment",
    pattern: rx(
      String.raw`\b(?:[Ii](?:'ll| will| shall)|[Ii] promise to|[Ii]'m going to|[Ww]e(?:'ll| will)) (?:make sure to |definitely |also |personally |first )?(?:${ACTIONS})\b`,
    ),
    found: () => ({ kind: "commitment" }),
  },
];

const EVENTS =
  "appointment|meeting|call|interview|dentist|doctor|flight|dinner|lunch|party|wedding|deadline|check-up|checkup|exam|concert|trip|reservation|demo|presentation|visit|surgery|vet|class|recital|game|match|review";
const DAYS = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday";
const MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December";
const WHEN = String.raw`\b(?:(?:${DAYS})|tomorrow|tonight|next (?:week|month|year|${DAYS})|(?:${MONTHS}|(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?) \d{1,2}(?:st|nd|rd|th)?|\d{1,2}(?:st|nd|rd|th)? (?:of )?(?:${MONTHS})|\d{4}-\d{2}-\d{2}|\d{1,2}(?::\d{2})? ?(?:am|pm|a\.m\.|p\.m\.))`;

const APPOINTMENT: Rule[] = [
  {
    kind: "appointment",
    pattern: rx(
      String.raw`\b([Aa]|[Aa]n|[Tt]he|[Mm]y|[Oo]ur|[Hh]is|[Hh]er|[Tt]heir) ((?:[a-z]+ )?(?:${EVENTS}))\b(?=.*${WHEN})`,
    ),
    found: (m) => {
      const own = /^(?:my|our)$/i.test(m[1]!);
      return own
        ? { kind: "appointment", holder: speaker, attribute: `${m[2]!.toLowerCase()} date` }
        : { kind: "appointment" };
    },
  },
];

const RELATIONSHIP: Rule[] = [
  {
    kind: "relationship",
    pattern: rx(String.raw`\b(${NAME}) (${RELATIONS}) (${NAME})`),
    found: (m) => {
      const subject = named(m[1]);
      if (!subject || !isName(m[3]!)) return undefined;
      const key = EMPLOYMENT.test(m[2]!) ? { holder: subject, attribute: "works at" } : {};
      return { kind: "relationship", ...key, relation: { subject, predicate: m[2]!, object: m[3]! } };
    },
  },
  {
    kind: "relationship",
    pattern: rx(
      String.raw`\b[Ii](?: now| currently)? (work (?:at|for)|(?:'ve |have )?(?:just )?joined) (${NAME})`,
    ),
    found: (m) =>
      isName(m[2]!)
        ? {
            kind: "relationship",
            holder: speaker,
            attribute: "works at",
            relation: { subject: speaker, predicate: m[1]!, object: m[2]! },
          }
        : undefined,
  },
];

function residence(name: string | undefined): Found | undefined {
  const holder = named(name);
  return holder ? { kind: "personal", holder, attribute: "lives in" } : undefined;
}

/** Every sentence rule, in the order their findings are listed. */
export const RULES: readonly Rule[] = [
  ...PREFERENCE,
  ...PERSONAL,
  ...DECISION,
  ...COMMITMENT,
  ...APPOINTMENT,
  ...RELATIONSHIP,
];

/** What the rules find in one sentence: at most one finding per kind (the first rule that matches). */
export function findIn(sentence: string): Found[] {
  if (HEDGE.test(sentence)) return [];
  const negated = NEGATION.test(sentence);
  const found: Found[] = [];
  const kinds = new Set<ExtractKind>();
  for (const rule of RULES) {
    if (kinds.has(rule.kind) || (negated && !rule.negative)) continue;
    const m = sentence.match(rule.pattern);
    const f = m ? rule.found(m) : undefined;
    if (!f) continue;
    kinds.add(rule.kind);
    found.push(f);
  }
  return found;
}
