/**
 * What each door hands the conversation path (door.ts): a bridge message or mention as a turn of
 * its channel thread's session (a message that is not a reply starts its own thread, so its
 * replies, whose `thread_ts` is its `ts`, join it), and the mail watch's new messages and replies
 * as turns of their mail thread's session, said by their sender.
 */
import type { BridgeEvent } from "../bridge/events.ts";
import type { IngestDraft } from "../sources/types.ts";
import { type DoorMessage, doorSessionId } from "./door.ts";

export interface DoorSession {
  sessionId: string;
  messages: DoorMessage[];
}

/** A bridge event's turn, for `message` and `app_mention` (none for reactions and joins). */
export function bridgeSession(event: BridgeEvent): DoorSession | undefined {
  if (event.type !== "message" && event.type !== "app_mention") return undefined;
  const thread = event.thread_ts ?? event.ts;
  const at = Math.round(Number(event.ts) * 1000);
  return {
    sessionId: doorSessionId("chat", event.channel, thread),
    messages: [{ speaker: event.user, content: event.text, at }],
  };
}

/** Event types of the mail drafts that are messages (a label added is not). */
const MAIL_MESSAGES = new Set(["mail.message_added", "mail.thread_reply"]);

/** The mail expansion's messages by thread, in the order they came. */
export function mailSessions(drafts: readonly IngestDraft[]): DoorSession[] {
  const sessions = new Map<string, DoorSession>();
  for (const { draft } of drafts) {
    if (!MAIL_MESSAGES.has(draft.source?.event_type ?? "")) continue;
    const data = (draft.data ?? {}) as Record<string, unknown>;
    const text = (key: string) => (typeof data[key] === "string" ? (data[key] as string).trim() : "");
    const thread = text("thread_id");
    const speaker = text("from");
    const content = text("excerpt") || text("subject");
    const at = draft.valid_from ? Date.parse(draft.valid_from) : Number.NaN;
    if (!thread || !speaker || !content || !Number.isFinite(at)) continue;
    const sessionId = doorSessionId("mail", thread);
    const session = sessions.get(sessionId) ?? { sessionId, messages: [] };
    session.messages.push({ speaker, content, at });
    sessions.set(sessionId, session);
  }
  for (const session of sessions.values()) session.messages.sort((a, b) => a.at - b.at);
  return [...sessions.values()];
}
