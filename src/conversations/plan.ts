/**
 * A conversation call turned into what the tenant actor writes, before it knows what the session
 * holds: each message's turn (a fact draft, its position and its message digest) and, unless
 * `extract: false`, the extractor's drafts over those turns. Pure: the same body and arrival time
 * give the same plan. The time rule is checked here (422 naming `/messages/<i>/at`).
 */
import { createHash } from "node:crypto";
import { ValidationFailed } from "../errors/domain-errors.ts";
import { isoOf, parseTimestamp } from "../models/common.ts";
import type { ConversationInput } from "../models/conversation.ts";
import type { EntryDraft } from "../models/entry.ts";
import { said } from "./extract/deterministic.ts";
import type { ExtractedDraft, Extractor } from "./extract/types.ts";
import { sessionTag, TURN_TAG } from "./tags.ts";

export interface PlannedTurn {
  position: number;
  speaker: string;
  at: number;
  /** SHA-256 of the message as sent (speaker, role, content, at): what a replay must match. */
  digest: string;
  draft: EntryDraft & { category: "fact" };
}

export interface ConversationPlan {
  sessionId: string;
  turns: PlannedTurn[];
  /** Drafts whose `turns` index `turns` above (not session positions). */
  extracted: ExtractedDraft[];
  extractor: string | null;
}

/** The plan of a validated body arriving at `now` (epoch ms). */
export function planConversation(
  body: ConversationInput,
  now: number,
  extractor: Extractor | undefined,
): ConversationPlan {
  const offset = body.offset ?? 0;
  let previous = Number.NEGATIVE_INFINITY;
  const turns = body.messages.map((message, i): PlannedTurn => {
    const speaker = message.speaker ?? message.role;
    if (speaker === undefined) fail(`/messages/${i}/speaker`, "give `speaker` or `role`");
    const at = message.at === undefined ? now + i : parseTimestamp(message.at);
    if (at === undefined) fail(`/messages/${i}/at`, "not a valid RFC 3339 timestamp");
    if (at < previous) fail(`/messages/${i}/at`, `goes back before message ${i - 1}'s time`);
    previous = at;
    const position = offset + i;
    const digest = createHash("sha256")
      .update(
        JSON.stringify([message.speaker ?? null, message.role ?? null, message.content, message.at ?? null]),
      )
      .digest("hex");
    return {
      position,
      speaker,
      at,
      digest,
      draft: turnDraft(body, message.content, speaker, at, position, digest),
    };
  });
  const use = body.extract === false ? undefined : extractor;
  const extracted = use
    ? use.extract(turns.map((t, i) => ({ speaker: t.speaker, content: body.messages[i]!.content, at: t.at })))
    : [];
  return { sessionId: body.session_id, turns, extracted, extractor: use?.name ?? null };
}

function turnDraft(
  body: ConversationInput,
  content: string,
  speaker: string,
  at: number,
  position: number,
  digest: string,
): PlannedTurn["draft"] {
  const message = body.messages[position - (body.offset ?? 0)]!;
  return {
    category: "fact",
    content: said(speaker, content),
    valid_from: isoOf(at),
    tags: [TURN_TAG, sessionTag(body.session_id)],
    session_id: body.session_id,
    ...(body.subject === undefined ? {} : { subject: body.subject }),
    ...(body.agent_id === undefined ? {} : { agent_id: body.agent_id }),
    data: {
      turn: {
        position,
        speaker,
        ...(message.role === undefined ? {} : { role: message.role }),
        message_sha256: digest,
      },
    },
  };
}

function fail(path: string, message: string): never {
  throw new ValidationFailed(`${path.slice(1)}: ${message}`, [{ path, message }]);
}
