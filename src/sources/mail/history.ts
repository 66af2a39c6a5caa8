/**
 * Mailbox history → drafts (SOURCES.md, `mail` expansion). Pure: the caller fetches the history
 * and the messages' metadata, and keeps the set of threads it has already seen.
 *   new message                         → fact (sender, subject, excerpt, thread id), tag "mail"
 *   labels added to a message           → fact with the labels as tags
 *   a message in an already-seen thread → decision (the thread's resolution: someone answered)
 *
 * Each message is first read into its facts (`MessageFacts`); an entry needs the facts its kind
 * requires (kit/required.ts: a new message or a reply names its sender). A message lacking them is
 * not written: it is split off the notification as an event of its own (`{notification}:{message}:
 * {kind}`, its facts as payload), which the tenant dead-letters as `missing_field` while the rest of
 * the notification is written. A replay of that dead letter maps its facts again (`mapMailMessage`).
 */
import type { EntryDraft } from "../../models/entry.ts";
import { clip, finish, isoFromEpoch, tagsOf } from "../kit/draft.ts";
import { decodeEntities } from "../kit/entities.ts";
import { isRecord } from "../kit/request.ts";
import { missingField, nonEmpty, type Required, valueText } from "../kit/required.ts";
import type { IngestDraft, MapResult, RejectedEvent, SourceEvent } from "../types.ts";
import type { HistoryRecord, MessageMeta, MessageRef } from "./api.ts";

export interface MailHistoryInput {
  history: HistoryRecord[];
  messages: Map<string, MessageMeta>;
  /** Threads seen before this batch; threads seen within it count too (the set is not mutated). */
  seenThreads: Set<string>;
  email: string;
  /** The notification's event id: the `source.event_id` of every entry. */
  eventId: string;
}

export interface MailHistoryResult {
  drafts: IngestDraft[];
  /** Messages lacking what their entry needs, each an event of its own to dead-letter. */
  rejected: RejectedEvent[];
}

const SYSTEM = "mail";

/** What an entry about one message is built from; a dead letter of the message keeps exactly this. */
export interface MessageFacts {
  mailbox: string;
  history_id: string;
  message: {
    id: string;
    thread_id: string;
    labels?: string[];
    snippet?: string;
    internal_date?: string;
    headers: { From?: string; Subject?: string; To?: string };
  };
  /** Labels events only: the labels added. */
  labels_added?: string[];
}

export type MessageKind = "message_added" | "thread_reply" | "labels_added";

/** What each kind of entry is built from (paths into MessageFacts). */
export const MAIL_REQUIRED: Readonly<Record<MessageKind, readonly Required[]>> = {
  message_added: ["message.id", "message.thread_id", "message.headers.From"],
  thread_reply: ["message.id", "message.thread_id", "message.headers.From"],
  labels_added: ["message.id", nonEmpty("labels_added")],
};

/** The event types of the events split off a notification (and of their dead letters). */
export const MAIL_MESSAGE_TYPES: Readonly<Record<string, MessageKind>> = {
  "mail.message_added": "message_added",
  "mail.thread_reply": "thread_reply",
  "mail.labels_added": "labels_added",
};

function header(meta: MessageMeta, name: string): string | undefined {
  const wanted = name.toLowerCase();
  const value = meta.payload?.headers?.find(
    (h) => typeof h?.name === "string" && h.name.toLowerCase() === wanted,
  )?.value;
  return valueText(value);
}

function factsOf(
  meta: MessageMeta,
  ref: MessageRef,
  input: MailHistoryInput,
  historyId: string,
): MessageFacts {
  return {
    mailbox: input.email,
    history_id: historyId,
    message: {
      id: meta.id,
      thread_id: ref.threadId ?? meta.threadId,
      labels: meta.labelIds ?? ref.labelIds,
      snippet: typeof meta.snippet === "string" ? meta.snippet : undefined,
      internal_date: typeof meta.internalDate === "string" ? meta.internalDate : undefined,
      headers: { From: header(meta, "From"), Subject: header(meta, "Subject"), To: header(meta, "To") },
    },
  };
}

function excerptOf(facts: MessageFacts): string | undefined {
  const snippet = facts.message.snippet?.trim();
  // Snippets come HTML-escaped (&#39;, &amp;) from the mail API.
  return snippet ? clip(decodeEntities(snippet), 500) : undefined;
}

function dataOf(facts: MessageFacts): Record<string, unknown> {
  const { message } = facts;
  const headers = message.headers ?? {};
  return {
    from: headers.From,
    subject: headers.Subject,
    excerpt: excerptOf(facts),
    to: headers.To,
    thread_id: message.thread_id,
    message_id: message.id,
    labels: message.labels,
    history_id: facts.history_id,
    mailbox: facts.mailbox,
  };
}

/** The entry of a message whose facts hold what its kind requires (checked by the caller). */
function draftOf(kind: MessageKind, facts: MessageFacts, eventId: string): EntryDraft {
  const { id, thread_id } = facts.message;
  const headers = facts.message.headers ?? {};
  const from = headers.From;
  const subject = headers.Subject;
  const excerpt = excerptOf(facts);
  const source = { system: SYSTEM, event_id: clip(eventId, 512), event_type: `mail.${kind}` };
  const valid_from = isoFromEpoch(facts.message.internal_date);
  if (kind === "message_added")
    return finish({
      category: "fact",
      content: `New mail from ${from!}${subject ? `: "${subject}"` : " without a subject"}${excerpt ? ` (${excerpt})` : ""}.`,
      tags: tagsOf("mail"),
      data: dataOf(facts),
      valid_from,
      source,
    });
  if (kind === "thread_reply")
    return finish({
      category: "decision",
      content: `${from!} answered in the thread ${subject ? `"${subject}"` : thread_id}${excerpt ? `: ${excerpt}` : ""}.`,
      stage: "thread_resolution",
      tags: tagsOf("mail", "thread_resolution"),
      data: dataOf(facts),
      valid_from,
      source,
    });
  const labels = facts.labels_added ?? [];
  return finish({
    category: "fact",
    content: `Mail ${subject ? `"${subject}"` : id}${from ? ` from ${from}` : ""} was labelled ${labels.join(", ")}.`,
    tags: tagsOf("mail", ...labels),
    data: { ...dataOf(facts), labels_added: labels },
    source,
  });
}

function objectKeyOf(kind: MessageKind, facts: MessageFacts): string {
  return kind === "labels_added"
    ? `mail:message:${facts.message.id}`
    : `mail:thread:${facts.message.thread_id}`;
}

/** A message's entry, or the event it is split off as when it lacks what its kind requires. */
function entryOrRejected(
  kind: MessageKind,
  facts: MessageFacts,
  input: MailHistoryInput,
  out: MailHistoryResult,
): void {
  const missing = missingField(facts, MAIL_REQUIRED[kind]);
  if (missing === undefined) {
    out.drafts.push({ draft: draftOf(kind, facts, input.eventId), object_key: objectKeyOf(kind, facts) });
    return;
  }
  const event: SourceEvent = {
    event_id: clip(`${input.eventId}:${facts.message.id}:${kind}`, 512),
    event_type: `mail.${kind}`,
    payload: facts,
  };
  out.rejected.push({ event, reason: "missing_field", detail: missing });
}

function isRef(value: unknown): value is MessageRef {
  const ref = value as MessageRef | undefined;
  return typeof ref?.id === "string" && typeof ref.threadId === "string";
}

export function mapMailHistory(input: MailHistoryInput): MailHistoryResult {
  const seen = new Set(input.seenThreads);
  const added = new Set<string>();
  const out: MailHistoryResult = { drafts: [], rejected: [] };
  for (const record of input.history ?? []) {
    for (const item of record?.messagesAdded ?? []) {
      const ref = item?.message;
      // Drafts are not mail that happened; a message listed twice is written once.
      if (!isRef(ref) || added.has(ref.id) || ref.labelIds?.includes("DRAFT")) continue;
      const meta = input.messages.get(ref.id);
      if (!meta) continue; // deleted before it could be read
      added.add(ref.id);
      const kind = seen.has(ref.threadId) ? "thread_reply" : "message_added";
      entryOrRejected(kind, factsOf(meta, ref, input, String(record.id)), input, out);
      seen.add(ref.threadId);
    }
    for (const item of record?.labelsAdded ?? []) {
      const ref = item?.message;
      const labels = Array.isArray(item?.labelIds)
        ? item.labelIds.filter((l) => typeof l === "string" && l)
        : [];
      const meta = isRef(ref) ? input.messages.get(ref.id) : undefined;
      if (!isRef(ref) || !meta || labels.length === 0) continue;
      const facts = { ...factsOf(meta, ref, input, String(record.id)), labels_added: labels };
      entryOrRejected("labels_added", facts, input, out);
    }
  }
  return out;
}

/** Maps a message split off a notification again (the replay of its dead letter). */
export function mapMailMessage(event: SourceEvent): MapResult {
  const kind = Object.hasOwn(MAIL_MESSAGE_TYPES, event.event_type)
    ? MAIL_MESSAGE_TYPES[event.event_type]
    : undefined;
  if (!kind || !isRecord(event.payload) || !isRecord(event.payload.message))
    return { ok: false, reason: "invalid_payload" };
  const missing = missingField(event.payload, MAIL_REQUIRED[kind]);
  if (missing !== undefined) return { ok: false, reason: "missing_field", detail: missing };
  const facts = event.payload as unknown as MessageFacts;
  return {
    ok: true,
    drafts: [{ draft: draftOf(kind, facts, event.event_id), object_key: objectKeyOf(kind, facts) }],
  };
}
