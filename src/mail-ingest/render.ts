/**
 * One day of one label as Markdown. Deterministic: the same messages give the same bytes, whatever
 * order they came in and whenever the command runs (no run time is written), so reruns are no-ops.
 * Threads are ordered by their first message of the day, messages by receipt time, ties by id.
 * Bodies go in fenced blocks, so their line breaks survive and nothing in a mail is read as Markdown.
 */
import type { MailMessage } from "../sources/mail/api.ts";
import { timeOf } from "./days.ts";
import { headerText } from "./encoded-words.ts";
import { type AttachmentInfo, messageContent } from "./mime.ts";

export interface DayInput {
  /** What the folder holds: `Label Clients`, `Search from:ada@example.com`. */
  title: string;
  day: string;
  timeZone: string;
  /** The day's messages, in any order, each once. */
  messages: MailMessage[];
  /** Per thread id, every day of the range with messages of that thread (a thread spanning days). */
  threadDays?: Map<string, string[]>;
}

function header(message: MailMessage, name: string): string {
  const value = message.payload?.headers?.find((h) => h.name?.toLowerCase() === name)?.value;
  return headerText(value);
}

/** Header text inside a Markdown line: characters Markdown would act on are escaped. */
export function inline(text: string): string {
  return text.replace(/[\\`*_[\]<>#|]/g, "\\$&");
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** A fence longer than any run of backticks in the text, so the text cannot close it. */
function fenced(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}text\n${text}\n${fence}`;
}

const at = (m: MailMessage) => Number(m.internalDate);
const byReceipt = (a: MailMessage, b: MailMessage) =>
  at(a) - at(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function threadsOf(messages: MailMessage[]): MailMessage[][] {
  const threads = new Map<string, MailMessage[]>();
  for (const m of [...messages].sort(byReceipt)) {
    const thread = threads.get(m.threadId) ?? [];
    thread.push(m);
    threads.set(m.threadId, thread);
  }
  // Map keeps insertion order: each thread sits where its first message of the day does.
  return [...threads.values()];
}

function attachmentLines(attachments: AttachmentInfo[]): string[] {
  if (attachments.length === 0) return [];
  const items = attachments.map(
    (a) => `- ${inline(a.filename)} (${inline(a.mimeType)}, ${formatSize(a.size)})`,
  );
  return ["", "Attachments (listed, not downloaded):", "", ...items];
}

function renderMessage(message: MailMessage, timeZone: string): string {
  const { text, attachments } = messageContent(message.payload);
  const from = header(message, "from") || "(unknown sender)";
  const when = timeOf(at(message), timeZone);
  const fields: [string, string][] = [
    ["Subject", header(message, "subject") || "(no subject)"],
    ["From", from],
    ["To", header(message, "to")],
    ["Cc", header(message, "cc")],
    ["Date", when],
  ];
  return [
    `### ${when.slice(11, 16)} · ${inline(from)}`,
    "",
    ...fields.filter(([, value]) => value).map(([name, value]) => `- **${name}:** ${inline(value)}`),
    "",
    text ? fenced(text) : "_(no text)_",
    ...attachmentLines(attachments),
  ].join("\n");
}

/** Where the rest of a thread that spans days is: links to its other days' files. */
function otherDaysLine(input: DayInput, threadId: string): string[] {
  const others = (input.threadDays?.get(threadId) ?? []).filter((d) => d !== input.day);
  if (others.length === 0) return [];
  return [`This thread also has messages on ${others.map((d) => `[${d}](${d}.md)`).join(", ")}.`];
}

function renderThread(messages: MailMessage[], input: DayInput): string {
  const subject = header(messages[0]!, "subject") || "(no subject)";
  return [
    `## ${inline(subject)}`,
    ...otherDaysLine(input, messages[0]!.threadId),
    ...messages.map((m) => renderMessage(m, input.timeZone)),
  ].join("\n\n");
}

export function renderDay(input: DayInput): string {
  const threads = threadsOf(input.messages);
  const count = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;
  const summary =
    `${count(threads.length, "thread")}, ${count(input.messages.length, "message")}. ` +
    `Each message is filed under the day it was received (time zone ${input.timeZone}).`;
  const head = [`# ${inline(input.title)} — ${input.day}`, summary];
  return `${[...head, ...threads.map((t) => renderThread(t, input))].join("\n\n")}\n`;
}
