import { Elysia } from "elysia";
import type { HttpKit } from "../http/http-kit.ts";
import { unchecked } from "../http/unchecked-response.ts";
import { validatedBody } from "../http/validate-body.ts";
import {
  ConversationInput,
  ConversationReply,
  MAX_MESSAGES,
  SessionParams,
  SessionTurns,
  SessionTurnsQuery,
} from "../models/conversation.ts";
import { problems, problemWith } from "../models/problem.ts";
import type { ConversationService } from "./service.ts";

/** A transcript may be as large as a batch: this many times the single-write body limit. */
const CONVERSATION_BODY_FACTOR = 16;

const ADD_422 =
  "Validation failed, naming the field: an empty transcript, a message over the content limit or without `speaker`/`role`, a time going back (`/messages/<i>/at`), a session id that is not an id, an unknown field, an `offset` past the session's end";

export interface ConversationRouteDeps {
  http: HttpKit;
  /** Shared with the MCP tool `conversation_add`. */
  conversations: ConversationService;
  /** The single-write body limit (a transcript may be CONVERSATION_BODY_FACTOR times it). */
  config: { bodyLimitBytes: number };
}

/** `POST /memory/conversations` and `GET /memory/conversations/{session_id}` (docs/conversations.md). */
export const conversationRoutes = ({ http, conversations, config }: ConversationRouteDeps) =>
  new Elysia({ name: "routes.conversations" })
    .use(http.authPlugin)
    .post(
      "/memory/conversations",
      async ({ body, principal, req, set }) => {
        const reply = await conversations.add({ principal, req }, body);
        set.status = reply.status;
        return reply.body;
      },
      {
        auth: { level: "caller", bodyLimit: config.bodyLimitBytes * CONVERSATION_BODY_FACTOR },
        ...validatedBody(ConversationInput),
        response: {
          200: unchecked(ConversationReply),
          201: unchecked(ConversationReply),
          ...problems(400, 401, 403, 413, 415, 503, 507),
          ...problemWith(
            409,
            "Another message is stored at one of the call's positions (named: `messages/<i>`); nothing was written",
          ),
          ...problemWith(422, ADD_422),
        },
        detail: {
          tags: ["memory"],
          summary: `Add up to ${MAX_MESSAGES} messages of a session: each kept as a turn, typed entries extracted from the new ones, in one transaction`,
        },
      },
    )
    .get(
      "/memory/conversations/:session_id",
      ({ params, query, principal, req }) =>
        conversations.turns({ principal, req }, params.session_id, query),
      {
        auth: "caller",
        params: SessionParams,
        query: SessionTurnsQuery,
        response: { 200: unchecked(SessionTurns), ...problems(401, 403, 422, 503, 507) },
        detail: { tags: ["memory"], summary: "A session's turns in order, a page at a time" },
      },
    );
