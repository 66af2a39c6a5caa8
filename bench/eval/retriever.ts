/** What the harness needs of a system under evaluation, service or baseline alike. */
import type { EvalConversation } from "./locomo.ts";

export interface RankedTurn {
  id: string;
  session: number;
}

export type Search = (query: string) => Promise<RankedTurn[]>;

export interface Retriever {
  /** Stores one conversation's turns and answers a search over them. */
  load(conversation: EvalConversation): Promise<Search>;
  close(): Promise<void>;
}

/** A turn as it is written and indexed: the speaker's name, then the text. */
export const turnContent = (turn: { speaker: string; text: string }) =>
  turn.speaker ? `${turn.speaker}: ${turn.text}` : turn.text;

/** Ranked results per query, as the reference measurement asks: the first 10. */
export const LIMIT = 10;
