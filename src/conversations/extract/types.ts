/**
 * What an extractor reads and writes: the turns of one conversation call in order, and drafts of
 * typed entries, each naming the turns it came from by their position in that list. Pure data, so
 * a model extractor can stand where the deterministic one stands (`Extractor`).
 */
import type { Category } from "../../models/category.ts";
import type { ExtractKind } from "../../models/conversation.ts";

export { EXTRACT_KINDS, type ExtractKind } from "../../models/conversation.ts";

/** One message as the extractor sees it: who said it, what, and when (epoch ms). */
export interface Turn {
  speaker: string;
  content: string;
  at: number;
}

/** The category each kind is written as (a commitment is a decision to act; an appointment a dated fact). */
export const CATEGORY_OF: Record<ExtractKind, Category> = {
  preference: "fact",
  personal: "fact",
  decision: "decision",
  commitment: "decision",
  appointment: "fact",
  relationship: "relationship",
  workflow: "workflow",
};

/**
 * The thing a statement is about, so that a later statement about it supersedes the earlier one
 * on valid time: the person (a speaker's name, or a named person) and the attribute ("lives-in").
 */
export interface SubjectKey {
  holder: string;
  attribute: string;
}

/** A typed entry an extractor proposes; every text in it is a span of its turns (or a speaker's name). */
export interface ExtractedDraft {
  kind: ExtractKind;
  category: Category;
  content: string;
  /** Positions, in the list given to `extract`, of the turns it came from (ascending). */
  turns: number[];
  /** Valid time: the time of its last turn. */
  at: number;
  key?: SubjectKey;
  /** A relationship's triple. */
  relation?: { subject: string; predicate: string; object: string };
  /** A workflow's steps. */
  steps?: string[];
  /** What a decision chose, when the statement names it ("let's go with Postgres"). */
  chosen?: string;
}

/** The one seam: the deterministic extractor, or later a model behind the same call. */
export interface Extractor {
  /** Named in the provenance of what it writes (`data.extractor`). */
  readonly name: string;
  extract(turns: readonly Turn[]): ExtractedDraft[];
}
