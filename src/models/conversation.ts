/**
 * `POST /memory/conversations` and `GET /memory/conversations/{session_id}` (docs/conversations.md):
 * a transcript in, each message kept as a raw turn of its session (a fact tagged `turn`), typed
 * entries extracted from it. Schemas here; the logic is in src/conversations/.
 */
import { type Static, Type } from "@sinclair/typebox";
import { Chars } from "./chars.ts";
import {
  Cursor,
  LiteralUnion,
  NextCursor,
  QueryInteger,
  QueryObject,
  StrictObject,
  Timestamp,
} from "./common.ts";
import { EntryView, entryViewOf } from "./entry.ts";
import { named } from "./schema-name.ts";
import { AgentId, ScopeId, SessionId, SubjectId } from "./scope.ts";

/** The kinds of statement the deterministic extractor knows, each scored apart (docs/conversations.md). */
export const EXTRACT_KINDS = [
  "preference",
  "personal",
  "decision",
  "commitment",
  "appointment",
  "relationship",
  "workflow",
] as const;
export type ExtractKind = (typeof EXTRACT_KINDS)[number];

/** A message's text: a turn is written `<speaker>: <content>`, which stays under an entry's 32,768. */
export const MAX_MESSAGE_CHARS = 32_000;
/** At most this many messages in one call (and the body limit of a batch). */
export const MAX_MESSAGES = 1000;

export const ConversationMessage = named(
  "ConversationMessage",
  StrictObject({
    speaker: Type.Optional(
      Chars(1, 128, { description: "Who said it (a name); this or `role` is required" }),
    ),
    role: Type.Optional(
      Chars(1, 64, { description: "`user`, `assistant`, …: the speaker when no `speaker` is given" }),
    ),
    content: Chars(1, MAX_MESSAGE_CHARS, {
      description: `The message's text (1–${MAX_MESSAGE_CHARS} characters)`,
    }),
    at: Type.Optional({
      ...Timestamp,
      description:
        "When it was said: the turn's valid time. Default: the arrival time (plus the message's index in the call, in ms, to keep the order on the time axis). Never before the message before it",
    }),
  }),
);

export const ConversationInput = named(
  "ConversationInput",
  StrictObject({
    session_id: SessionId,
    subject: Type.Optional(SubjectId),
    agent_id: Type.Optional(AgentId),
    messages: Type.Array(ConversationMessage, {
      minItems: 1,
      maxItems: MAX_MESSAGES,
      description: `1–${MAX_MESSAGES} messages in the order they were said`,
    }),
    offset: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1_000_000,
        description:
          "The session position of the first message (default 0: the call carries the transcript from its start); past the session's end is a 422. A message's identity is its session and its position: another message at a stored position is a 409",
      }),
    ),
    extract: Type.Optional(
      Type.Boolean({ description: "Extract typed entries from the new turns (default true)" }),
    ),
    dry_run: Type.Optional(Type.Boolean({ description: "Answer what would be written; write nothing" })),
  }),
);
export type ConversationInput = Static<typeof ConversationInput>;

const Written = Type.Integer({
  minimum: 200,
  maximum: 201,
  description: "201 new (written, or would be), 200 already stored",
});

export const ConversationTurn = named(
  "ConversationTurn",
  StrictObject({
    position: Type.Integer({ minimum: 0 }),
    status: Written,
    entry: entryViewOf("fact"),
  }),
);

export const ExtractedEntry = named(
  "ExtractedEntry",
  StrictObject({
    kind: LiteralUnion(EXTRACT_KINDS),
    status: Written,
    /** The session positions of the turns it came from. */
    positions: Type.Array(Type.Integer({ minimum: 0 })),
    entry: EntryView,
  }),
);

export const ConversationReply = named(
  "ConversationReply",
  StrictObject({
    session_id: SessionId,
    dry_run: Type.Boolean(),
    extractor: Type.Union([Type.String(), Type.Null()], {
      description: "The extractor's name; null with `extract: false`",
    }),
    turns: Type.Array(ConversationTurn),
    extracted: Type.Array(ExtractedEntry, { description: "Entries extracted from this call's new turns" }),
  }),
);
export type ConversationReply = Static<typeof ConversationReply>;

export const SessionParams = Type.Object({ session_id: SessionId });

export const SessionTurnsQuery = QueryObject({
  limit: Type.Optional(QueryInteger({ minimum: 1, maximum: 500, default: 100 })),
  cursor: Type.Optional(Cursor),
  subject: Type.Optional(
    ScopeId(
      "Whose session: a session is named by its id within its subject (default: the unscoped one; a subject-restricted token: its own)",
    ),
  ),
});

export const SessionTurns = named(
  "SessionTurns",
  StrictObject({
    session_id: SessionId,
    turns: Type.Array(StrictObject({ position: Type.Integer({ minimum: 0 }), entry: entryViewOf("fact") })),
    next_cursor: NextCursor,
  }),
);
export type SessionTurns = Static<typeof SessionTurns>;
