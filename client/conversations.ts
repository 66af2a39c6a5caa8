/**
 * Conversations: add a session's messages (each kept as a turn, typed entries extracted from the
 * new ones) and read a session's turns in order (docs/conversations.md).
 */
import type { components } from "./openapi-types.ts";
import type { Send } from "./send.ts";
import type { Result } from "./types.ts";

/** The body of `POST /memory/conversations`. */
export type ConversationRequest = components["schemas"]["ConversationInput"];
/** Its answer: the call's turns (each 201 new or 200 stored) and the entries extracted. */
export type ConversationAnswer = components["schemas"]["ConversationReply"];
/** A page of a session's turns. */
export type SessionTurnsPage = components["schemas"]["SessionTurns"];

export interface ConversationsApi {
  /** `POST /memory/conversations`: 201 when something was written, 200 for a replay or a `dry_run`. */
  add(conversation: ConversationRequest): Promise<Result<ConversationAnswer>>;
  /** `GET /memory/conversations/{session_id}`: the session's turns in position order, paged by `cursor`. */
  turns(
    sessionId: string,
    query?: { limit?: number; cursor?: string; subject?: string },
  ): Promise<Result<SessionTurnsPage>>;
}

export function conversationsApi(send: Send): ConversationsApi {
  return {
    add: (conversation) => send("POST", "/memory/conversations", { body: conversation }),
    turns: (sessionId, query) =>
      send("GET", "/memory/conversations/{session_id}", {
        params: { path: { session_id: sessionId }, query },
      }),
  };
}
