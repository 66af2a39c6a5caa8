import type { ModelCandidate } from "../conversations/model/prompt.ts";
import type { ConversationPlan } from "../conversations/plan.ts";
import type { ConversationReply, SessionTurns } from "../models/conversation.ts";
import type { Provenance } from "../models/origin.ts";
import type { ScopeFilter } from "../models/scope.ts";
import type { Overrides } from "../provenance/trust-rule.ts";

/** A conversation call as the tenant actor takes it: the plan, the scope and each draft's vector. */
export interface AddConversation {
  plan: ConversationPlan;
  subject?: string;
  agentId?: string;
  createdBy: string;
  /** Vectors of the plan's turns and extracted drafts, in order (undefined: none, or made later). */
  turnVectors: Array<Float32Array | undefined>;
  extractedVectors: Array<Float32Array | undefined>;
  dryRun: boolean;
  /** A subject-restricted writer's reach: the entries its statements may supersede. */
  within?: ScopeFilter["within"];
  /** The writer's provenance (its turns'); extracted entries derive theirs from their turns. */
  provenance: Provenance;
  overrides?: Overrides;
}

/** The tenant actor's conversation messages (actors/tenant/conversations/). */
export type ConversationTenantProtocol = {
  /** The session's new turns and what is extracted from them, in one transaction (none with `dryRun`). */
  "conversation.add": { msg: AddConversation; reply: { status: 200 | 201; body: ConversationReply } };
  /** The session's turns in position order, after position `after` (exclusive). */
  "conversation.turns": {
    msg: { sessionId: string; subject?: string; limit: number; after?: number };
    reply: Omit<SessionTurns, "next_cursor"> & { last?: number; more: boolean };
  };
  /** The position after the session's last stored turn (0: a new session): where a door appends. */
  "conversation.length": { msg: { sessionId: string; subject?: string }; reply: number };
  /** A model extraction job's answer: what validates written with the job's record removed. */
  "conversation.extracted": {
    msg: { key: string; turnIds: string[]; candidates: ModelCandidate[] };
    reply: { stored: number; dropped: number };
  };
  /** A model extraction job let go (its answer was not JSON): its record removed. */
  "conversation.unqueue": { msg: { key: string }; reply: undefined };
};
