/**
 * The part of the mail provider's search language the fake understands, enough to test the ingest
 * command's queries: `after:` and `before:` (epoch seconds or YYYY/MM/DD, UTC), `from:`, `to:`,
 * `subject:`, `label:`, `in:`, `has:attachment`, bare words (subject, snippet or sender), quoted
 * phrases, a leading `-` to negate, and parentheses (ignored: every term must hold). A thread
 * matches when one of its messages (spam and trash left out) matches every term and the thread
 * carries every label id asked for.
 */
import type { MailLabel, MailMessage, MessagePart } from "../../src/sources/mail/api.ts";

interface Term {
  key: string;
  value: string;
  negated: boolean;
}

function terms(q: string): Term[] {
  const found: Term[] = [];
  const pattern = /(-?)(?:([a-zA-Z]+):)?(?:"([^"]*)"|([^\s()"]+))/g;
  for (const m of q.replace(/[()]/g, " ").matchAll(pattern)) {
    const value = m[3] ?? m[4] ?? "";
    if (!m[2] && /^(AND|OR)$/.test(value)) continue;
    found.push({ key: (m[2] ?? "").toLowerCase(), value, negated: m[1] === "-" });
  }
  return found;
}

function header(message: MailMessage, name: string): string {
  return message.payload?.headers?.find((h) => h.name.toLowerCase() === name)?.value ?? "";
}

function seconds(value: string): number {
  const date = /^(\d{4})\/(\d{1,2})\/(\d{1,2})$/.exec(value);
  return date ? Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3])) / 1000 : Number(value);
}

function hasAttachment(part: MessagePart | undefined): boolean {
  if (!part) return false;
  return Boolean(part.filename) || (part.parts ?? []).some(hasAttachment);
}

function labelled(message: MailMessage, value: string, labels: MailLabel[]): boolean {
  const wanted = value.toLowerCase().replace(/[-/]/g, " ");
  return (message.labelIds ?? []).some((id) => {
    const name = labels.find((l) => l.id === id)?.name ?? id;
    return name.toLowerCase().replace(/[-/]/g, " ") === wanted || id.toLowerCase() === value.toLowerCase();
  });
}

function contains(haystack: string, needle: string): boolean {
  return haystack.toLowerCase().includes(needle.toLowerCase());
}

function holds(message: MailMessage, term: Term, labels: MailLabel[]): boolean {
  const at = Number(message.internalDate) / 1000;
  switch (term.key) {
    case "after":
      return at >= seconds(term.value);
    case "before":
      return at < seconds(term.value);
    case "from":
    case "to":
    case "subject":
      return contains(header(message, term.key), term.value);
    case "label":
    case "in":
      return labelled(message, term.value, labels);
    case "has":
      return term.value === "attachment" && hasAttachment(message.payload);
    default:
      return [header(message, "subject"), message.snippet ?? "", header(message, "from")].some((text) =>
        contains(text, term.value),
      );
  }
}

export function threadMatches(
  messages: MailMessage[],
  q: string,
  labelIds: string[],
  labels: MailLabel[],
): boolean {
  const threadLabels = new Set(messages.flatMap((m) => m.labelIds ?? []));
  if (!labelIds.every((id) => threadLabels.has(id))) return false;
  const wanted = terms(q);
  return messages.some(
    (m) =>
      !m.labelIds?.some((l) => l === "SPAM" || l === "TRASH") &&
      wanted.every((t) => holds(m, t, labels) !== t.negated),
  );
}
