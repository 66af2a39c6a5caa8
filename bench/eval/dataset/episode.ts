/**
 * What an episode is: a few turns in which one speaker (the owner) tells the other (the partner)
 * something about their life, and the questions those turns answer. Turns are objects, and a
 * question names its evidence by the very turn objects; the session builder gives each its
 * `D<session>:<turn>` id afterwards.
 */
import type { NameBook } from "./name-book.ts";
import type { Pronoun } from "./names.ts";
import type { Rng } from "./prng.ts";
import type { HomeCity } from "./world.ts";

export const CATEGORIES = ["single-hop", "multi-hop", "temporal", "open-domain", "paraphrase"] as const;
export type Category = (typeof CATEGORIES)[number];

export interface Line {
  by: "owner" | "partner";
  text: string;
}

export interface QuestionDraft {
  category: Category;
  question: string;
  answer: string;
  evidence: Line[];
}

/** A dated event of a person's, for "which came first" questions. */
export interface Dated {
  /** A gerund phrase: "adopting Biscuit". */
  label: string;
  date: Date;
  line: Line;
}

/** One item of a person's list (their trips, pets, purchases), for aggregate questions. */
export interface Listed {
  item: string;
  line: Line;
}

export interface Home {
  city: HomeCity;
  neighbourhood: string;
  line: Line;
  date: Date;
}

export interface Pet {
  name: string;
  species: string;
  /** The breed when it has one, else the species: how a multi-hop question names it. */
  label: string;
  pronoun: Pronoun;
  detail: Line;
  news: boolean;
}

export interface Job {
  title: string;
  sector: string;
  company: string;
  line: Line;
  date: Date;
  promoted: boolean;
}

export interface Relative {
  name: string;
  relation: string;
  pronoun: Pronoun;
  occupation: string;
  line: Line;
  news: boolean;
}

export interface Hobby {
  kind: "instrument" | "craft" | "club";
  /** The instrument, craft or club. */
  name: string;
  line: Line;
  /** The turn naming the teacher or coach. */
  detail: Line;
  teacher: string;
  date: Date;
  milestone: boolean;
}

/** A speaker and what the conversation has established about their life so far. */
export interface Person {
  name: string;
  pronoun: Pronoun;
  homes: Home[];
  jobs: Job[];
  pets: Pet[];
  relatives: Relative[];
  hobbies: Hobby[];
  dated: Dated[];
  lists: Map<string, Listed[]>;
  /** How many episodes of each kind the person has had. */
  counts: Map<string, number>;
}

export function newPerson(name: string, pronoun: Pronoun): Person {
  return {
    name,
    pronoun,
    homes: [],
    jobs: [],
    pets: [],
    relatives: [],
    hobbies: [],
    dated: [],
    lists: new Map(),
    counts: new Map(),
  };
}

export function listItem(person: Person, key: string, item: Listed): void {
  const list = person.lists.get(key) ?? [];
  list.push(item);
  person.lists.set(key, list);
}

export interface EpisodeContext {
  rng: Rng;
  owner: Person;
  partner: Person;
  /** When the session takes place. */
  spoken: Date;
  names: NameBook;
}

export interface Episode {
  lines: Line[];
  questions: QuestionDraft[];
}

export interface EpisodeKind {
  id: string;
  /** Relative frequency among the kinds a person may have now. */
  weight: number;
  /** At most this many per person. */
  max: number;
  /** Whether the person's story allows it now (a pet's news needs a pet). */
  ready?: (person: Person) => boolean;
  make(ctx: EpisodeContext): Episode;
}

export const owner = (text: string): Line => ({ by: "owner", text });
export const partner = (text: string): Line => ({ by: "partner", text });

/** Pronoun forms: object and possessive (the subject is the pronoun itself). */
export const obj = (p: Pronoun) => (p === "she" ? "her" : "him");
export const poss = (p: Pronoun) => (p === "she" ? "her" : "his");
export const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
export { article } from "./grammar.ts";

export const q = (category: Category, question: string, answer: string, evidence: Line[]): QuestionDraft => ({
  category,
  question,
  answer,
  evidence,
});
