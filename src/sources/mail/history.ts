/**
 * Mailbox history → drafts (SOURCES.md, `mail` expansion). Pure: the caller fetches the history
 * and the messages' metadata, and keeps the set of threads it has already seen.
 *   new message                         → fact (sender, subject, excerpt, thread id), tag "mail"
 *   labels added to a message           → fact with the labels as tags
 *   a message in an already-seen thread → decision (the thread's resolution: someone answered)
 */
import type { EntryDraft } from "../../models/entry.ts";
import { clip, finish, isoFromEpoch, tagsOf } from "../kit/draft.ts";
import { decodeEntities } from "../kit/entities.ts";
import type { IngestDraft } from "../types.ts";
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

const SYSTEM = "mail";

function header(meta: MessageMeta, name: string): string | undefined {
  const wanted = name.toLowerCase();
  const value = meta.payload?.headers?.find(
    (h) => typeof h?.name === "string" && h.name.toLowerCase() === wanted,
  )?.value;
  return typeof value === "string" && value.trim() ? value.trim() : undefined;
}

interface Summary {
  from: string;
  subject: string;
  excerpt: string | undefined;
  data: Record<string, unknown>;
  valid_from: string | undefined;
}

function summarise(meta: MessageMeta, ref: MessageRef, input: MailHistoryInput, historyId: string): Summary {
  const from = header(meta, "From") ?? "an unknown sender";
  const subject = header(meta, "Subject") ?? "(no subject)";
  // Snippets come HTML-escaped (&#39;, &amp;) from the mail API.
  const excerpt =
    typeof meta.snippet === "string" && meta.snippet.trim()
      ? clip(decodeEntities(meta.snippet.trim()), 500)
      : undefined;
  const data = {
    from,
    subject,
    excerpt,
    to: header(meta, "To"),
    thread_id: ref.threadId ?? meta.threadId,
    message_id: meta.id,
    labels: meta.labelIds ?? ref.labelIds,
    history_id: historyId,
    mailbox: input.email,
  };
  return { from, subject, excerpt, data, valid_from: isoFromEpoch(meta.internalDate) };
}

function source(input: MailHistoryInput, eventType: string) {
  return { system: SYSTEM, event_id: clip(input.eventId, 512), event_type: eventType };
}

function newMessage(s: Summary, input: MailHistoryInput): EntryDraft {
  return finish({
    category: "fact",
    content: `New mail from ${s.from}: "${s.subject}"${s.excerpt ? ` (${s.excerpt})` : ""}.`,
    tags: tagsOf("mail"),
    data: s.data,
    valid_from: s.valid_from,
    source: source(input, "mail.message_added"),
  });
}

function threadReply(s: Summary, input: MailHistoryInput): EntryDraft {
  return finish({
    category: "decision",
    content: `${s.from} answered in the thread "${s.subject}"${s.excerpt ? `: ${s.excerpt}` : ""}.`,
    stage: "thread_resolution",
    tags: tagsOf("mail", "thread_resolution"),
    data: s.data,
    valid_from: s.valid_from,
    source: source(input, "mail.thread_reply"),
  });
}

function labelsAdded(s: Summary, labels: string[], input: MailHistoryInput): EntryDraft {
  return finish({
    category: "fact",
    content: `Mail "${s.subject}" from ${s.from} was labelled ${labels.join(", ")}.`,
    tags: tagsOf("mail", ...labels),
    data: { ...s.data, labels_added: labels },
    source: source(input, "mail.labels_added"),
  });
}

function isRef(value: unknown): value is MessageRef {
  const ref = value as MessageRef | undefined;
  return typeof ref?.id === "string" && typeof ref.threadId === "string";
}

export function mapMailHistory(input: MailHistoryInput): IngestDraft[] {
  const seen = new Set(input.seenThreads);
  const added = new Set<string>();
  const drafts: IngestDraft[] = [];
  for (const record of input.history ?? []) {
    for (const item of record?.messagesAdded ?? []) {
      const ref = item?.message;
      // Drafts are not mail that happened; a message listed twice is written once.
      if (!isRef(ref) || added.has(ref.id) || ref.labelIds?.includes("DRAFT")) continue;
      const meta = input.messages.get(ref.id);
      if (!meta) continue; // deleted before it could be read
      added.add(ref.id);
      const s = summarise(meta, ref, input, String(record.id));
      const draft = seen.has(ref.threadId) ? threadReply(s, input) : newMessage(s, input);
      seen.add(ref.threadId);
      drafts.push({ draft, object_key: `mail:thread:${ref.threadId}` });
    }
    for (const item of record?.labelsAdded ?? []) {
      const ref = item?.message;
      const labels = Array.isArray(item?.labelIds)
        ? item.labelIds.filter((l) => typeof l === "string" && l)
        : [];
      const meta = isRef(ref) ? input.messages.get(ref.id) : undefined;
      if (!isRef(ref) || !meta || labels.length === 0) continue;
      const s = summarise(meta, ref, input, String(record.id));
      drafts.push({ draft: labelsAdded(s, labels, input), object_key: `mail:message:${ref.id}` });
    }
  }
  return drafts;
}
