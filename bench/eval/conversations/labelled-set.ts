/**
 * The extractor's labelled set (docs/conversations.md#measured): seeded, generated here, so it is
 * licence-clean and the same on every machine. Each persona talks with an assistant over four
 * sessions a month apart; each user line is drawn from templates of one kind, and labelled with
 * that kind (and its subject key) or with none. Templates come in two sets: phrasings the rules
 * know and phrasings they do not ("held out", so recall is not the rules read back), and
 * distractors (questions, hedges, requests, near misses) that a careless rule would take.
 */

import type { ExtractKind } from "../../../src/models/conversation.ts";
import { Rng } from "../dataset/prng.ts";

export const LABELLED_SET_NAME = "conversation-extraction-v1";
const SEED = 3232;

export interface Label {
  kind: ExtractKind;
  /** The subject key's attribute where the kind has one (`lives in`, `works at`, …). */
  attribute?: string;
}

export interface LabelledTurn {
  speaker: string;
  content: string;
  at: string;
  labels: Label[];
  /** Whether the line is a phrasing the rules were not written for. */
  heldOut: boolean;
}

export interface LabelledSession {
  persona: string;
  subject: string;
  sessionId: string;
  turns: LabelledTurn[];
}

/** A question the route part asks: its evidence are turns (session id, position). */
export interface RouteQuestion {
  subject: string;
  question: string;
  kind: "current" | "past" | "recall";
  /** Where a past question looks (valid_at). */
  validAt?: string;
  evidence: Array<{ sessionId: string; position: number }>;
  /** Turns of an earlier statement about the same key: a current answer must not rank them first. */
  stale: Array<{ sessionId: string; position: number }>;
}

const NAMES = [
  "Maya",
  "Tom",
  "Priya",
  "Daniel",
  "Sofia",
  "Kwame",
  "Elena",
  "Marcus",
  "Aisha",
  "Jonas",
  "Hana",
  "Luis",
];
const FRIENDS = ["Ada", "Ben", "Clara", "Dev", "Eva", "Farid", "Gina", "Hugo"];
const CITIES = [
  "Lisbon",
  "Berlin",
  "Oslo",
  "Porto",
  "Montreal",
  "Kyoto",
  "Nairobi",
  "Valencia",
  "Tallinn",
  "Hobart",
];
const ORGS = [
  "Acme Corp",
  "Globex",
  "Initech",
  "Northwind",
  "Bluebird Labs",
  "Quarry Works",
  "Helio Systems",
  "Juniper Health",
];
const THINGS = [
  "window seats",
  "green tea",
  "early flights",
  "dark chocolate",
  "quiet cafes",
  "paper notebooks",
];
const FAVOURITES: Array<[string, string[]]> = [
  ["colour", ["green", "orange", "navy"]],
  ["food", ["ramen", "paella", "dumplings"]],
  ["band", ["the Weathervanes", "Static Bloom"]],
];
const ACTIONS = [
  "move billing to the new provider",
  "hire a second designer",
  "pause the newsletter",
  "ship the beta in May",
];
const OPTIONS = ["the blue logo", "the smaller office", "Postgres", "the Tuesday slot"];
const OBJECTS = ["the contract", "the slides", "the invoice", "the photos", "the draft"];
const DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"];
const KIDS = ["Lily", "Noor", "Felix", "Iris", "Omar"];
const GOALS: Array<[string, string[]]> = [
  ["bake bread", ["mix the dough", "let it rise overnight", "bake it at 230 degrees"]],
  ["file expenses", ["scan the receipts", "fill in the form", "send it to finance"]],
  ["deploy the site", ["run the tests", "build the bundle", "push it to the server"]],
];

type Line = { content: string; labels: Label[]; heldOut?: boolean };
type Pick = <T>(items: readonly T[]) => T;

const covered = (content: string, kind: ExtractKind, attribute?: string): Line => ({
  content,
  labels: [{ kind, ...(attribute ? { attribute } : {}) }],
});
const heldOut = (content: string, kind: ExtractKind, attribute?: string): Line => ({
  ...covered(content, kind, attribute),
  heldOut: true,
});
const none = (content: string): Line => ({ content, labels: [] });

function residence(city: string, pick: Pick): Line {
  return pick([
    covered(`I live in ${city}.`, "personal", "lives in"),
    covered(`I moved to ${city} last month.`, "personal", "lives in"),
    covered(`I'm based in ${city} these days.`, "personal", "lives in"),
    heldOut(`Home is ${city} now.`, "personal", "lives in"),
  ]);
}

function employer(org: string, pick: Pick): Line {
  return pick([
    covered(`I work at ${org}.`, "relationship", "works at"),
    covered(`I joined ${org} in the spring.`, "relationship", "works at"),
    heldOut(`I'm with ${org} now.`, "relationship", "works at"),
  ]);
}

/** A line of one kind (or a distractor), for the user `name`. */
function lineOf(kind: ExtractKind | "none", pick: Pick): Line {
  switch (kind) {
    case "preference": {
      const [cat, values] = pick(FAVOURITES);
      const thing = pick(THINGS);
      return pick([
        covered(`I prefer ${thing}.`, "preference"),
        covered(`I really love ${thing}.`, "preference"),
        covered(`My favourite ${cat} is ${pick(values)}.`, "preference"),
        heldOut(`Nothing beats ${thing}, honestly.`, "preference"),
      ]);
    }
    case "personal":
      return pick([
        covered(`My daughter is called ${pick(KIDS)}.`, "personal"),
        covered(`My son is ${pick([4, 7, 9, 12])}.`, "personal"),
        covered("I'm vegetarian.", "personal"),
        heldOut(`${pick(KIDS)} is my youngest.`, "personal"),
      ]);
    case "decision":
      return pick([
        covered(`We decided to ${pick(ACTIONS)}.`, "decision"),
        covered(`Let's go with ${pick(OPTIONS)}.`, "decision"),
        covered(`We agreed to ${pick(ACTIONS)}.`, "decision"),
        heldOut(`The plan is to ${pick(ACTIONS)}.`, "decision"),
        heldOut(`We settled on ${pick(OPTIONS)}.`, "decision"),
      ]);
    case "commitment":
      return pick([
        covered(`I'll send ${pick(OBJECTS)} on ${pick(DAYS)}.`, "commitment"),
        covered(`I promise to review ${pick(OBJECTS)} tonight.`, "commitment"),
        heldOut(`You'll have ${pick(OBJECTS)} from me by ${pick(DAYS)}.`, "commitment"),
      ]);
    case "appointment":
      return pick([
        covered(
          `My dentist appointment is on ${pick(DAYS)} at 3pm.`,
          "appointment",
          "dentist appointment date",
        ),
        covered(`We have a team meeting on ${pick(DAYS)}.`, "appointment"),
        heldOut(`Seeing the doctor ${pick(DAYS)} morning.`, "appointment"),
      ]);
    case "relationship": {
      const [a, b] = [pick(FRIENDS), pick(ORGS)];
      return pick([
        covered(`${a} works at ${b}.`, "relationship", "works at"),
        covered(`${a} is the CEO of ${b}.`, "relationship"),
        heldOut(`${a} runs the design team over at ${b}.`, "relationship"),
      ]);
    }
    case "workflow": {
      const [goal, [s1, s2, s3]] = pick(GOALS) as [string, [string, string, string]];
      return pick([
        covered(`To ${goal}, first ${s1}, then ${s2}, and finally ${s3}.`, "workflow"),
        covered(`1. ${cap(s1)} 2. ${cap(s2)} 3. ${cap(s3)}`, "workflow"),
        heldOut(`When I ${goal} I ${s1}, ${s2} and ${s3}.`, "workflow"),
      ]);
    }
    default:
      return pick([
        none(`Do you prefer ${pick(THINGS)}?`),
        none(`Maybe we'll go with ${pick(OPTIONS)}.`),
        none("We haven't decided yet."),
        none(`If I move to ${pick(CITIES)}, I'll tell you.`),
        none("I'd like to book a table for two."),
        none("The meeting went well."),
        none("I like that idea."),
        none("I'll think about it."),
        none(`${pick(CITIES)} was lovely in the spring.`),
        none("Thanks, that helps a lot."),
      ]);
  }
}

const cap = (s: string) => `${s[0]!.toUpperCase()}${s.slice(1)}`;

const REPLIES = [
  "Got it.",
  "Noted, thanks for telling me.",
  "That sounds lovely.",
  "Good luck with that!",
  "Understood.",
];
const KIND_WEIGHTS: Partial<Record<ExtractKind | "none", number>> = {
  preference: 2,
  personal: 2,
  decision: 2,
  commitment: 2,
  appointment: 2,
  relationship: 2,
  workflow: 1,
  none: 4,
};

export interface LabelledSet {
  name: string;
  sessions: LabelledSession[];
  questions: RouteQuestion[];
}

/** The set: `personas` users of four sessions each (the full set: 12; `--small`: 3). */
export function labelledSet(personas = NAMES.length): LabelledSet {
  const rng = new Rng(SEED);
  const pick: Pick = (items) => rng.pick(items);
  const sessions: LabelledSession[] = [];
  const questions: RouteQuestion[] = [];
  const start = Date.parse("2026-01-05T09:00:00Z");
  NAMES.slice(0, personas).forEach((name, p) => {
    const subject = `user-${p + 1}`;
    const [home, moved] = rng.shuffle(CITIES) as [string, string];
    const [job, newJob] = rng.shuffle(ORGS) as [string, string];
    const keyed: Record<string, Array<{ sessionId: string; position: number; at: number }>> = {};
    const recall: RouteQuestion[] = [];
    for (let s = 0; s < 4; s++) {
      const sessionId = `${subject}-s${s + 1}`;
      const turns: LabelledTurn[] = [];
      let at = start + (s * 30 + p) * 86_400_000;
      const say = (speaker: string, line: Line) => {
        turns.push({
          speaker,
          content: line.content,
          at: new Date(at).toISOString(),
          labels: line.labels,
          heldOut: line.heldOut === true,
        });
        at += 60_000;
      };
      const keyedLine = (attribute: string, line: Line) => {
        keyed[attribute] = [...(keyed[attribute] ?? []), { sessionId, position: turns.length, at }];
        say(name, line);
      };
      // The facts that change: a home and an employer in the first session, a move and a new job in the third.
      if (s === 0) keyedLine("lives in", residence(home, pick));
      if (s === 1) keyedLine("works at", employer(job, pick));
      if (s === 2) keyedLine("lives in", residence(moved, pick));
      if (s === 3) keyedLine("works at", employer(newJob, pick));
      say("assistant", none(pick(REPLIES)));
      for (let i = 0; i < 8; i++) {
        const kind = rng.weighted(KIND_WEIGHTS) ?? "none";
        const line = lineOf(kind, pick);
        if (kind !== "none" && !line.heldOut && recall.length < 6)
          recall.push(recallQuestion(subject, name, kind, line, sessionId, turns.length));
        say(name, line);
        if (rng.chance(0.5)) say("assistant", none(pick(REPLIES)));
      }
      sessions.push({ persona: name, subject, sessionId, turns });
    }
    questions.push(...changeQuestions(subject, name, keyed), ...recall);
  });
  return { name: LABELLED_SET_NAME, sessions, questions };
}

function changeQuestions(
  subject: string,
  name: string,
  keyed: Record<string, Array<{ sessionId: string; position: number; at: number }>>,
): RouteQuestion[] {
  const ask: Record<string, [string, string]> = {
    "lives in": [`Where does ${name} live now?`, `Where did ${name} live back then?`],
    "works at": [`Where does ${name} work now?`, `Where did ${name} work back then?`],
  };
  const out: RouteQuestion[] = [];
  for (const [attribute, [before, after]] of Object.entries(keyed).map(([a, turns]) => [a, turns] as const)) {
    if (!before || !after) continue;
    const ref = ({ sessionId, position }: { sessionId: string; position: number }) => ({
      sessionId,
      position,
    });
    const [now, then] = ask[attribute]!;
    out.push({ subject, question: now, kind: "current", evidence: [ref(after)], stale: [ref(before)] });
    out.push({
      subject,
      question: then,
      kind: "past",
      validAt: new Date((before.at + after.at) / 2).toISOString(),
      evidence: [ref(before)],
      stale: [ref(after)],
    });
  }
  return out;
}

/** A question about one line: its words are the line's own nouns, asked about the persona. */
function recallQuestion(
  subject: string,
  name: string,
  kind: ExtractKind,
  line: Line,
  sessionId: string,
  position: number,
): RouteQuestion {
  const topic = line.content.replace(/^(?:I|We|My|Let's)\b[^ ]* /u, "").replace(/[.!]$/u, "");
  const question = {
    preference: `What does ${name} like? ${topic}`,
    personal: `What do we know about ${name}'s family? ${topic}`,
    decision: `What did ${name}'s team decide? ${topic}`,
    commitment: `What did ${name} promise? ${topic}`,
    appointment: `When is ${name}'s appointment? ${topic}`,
    relationship: `Who works where? ${topic}`,
    workflow: `How does ${name} do it? ${topic}`,
  }[kind];
  return { subject, question, kind: "recall", evidence: [{ sessionId, position }], stale: [] };
}
