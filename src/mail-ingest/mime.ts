/**
 * A message's MIME tree (as the mail API returns it with `format=full`) → its readable text and the
 * list of its attachments. Bodies arrive base64url-encoded in the part's charset. Of the versions of
 * a `multipart/alternative` the plain text one is read, else the HTML one turned into text; every
 * other multipart has its text parts read in order. Attachments are described (name, type, size)
 * from the tree alone: their bytes are never in it and never fetched.
 */
import type { MessagePart } from "../sources/mail/api.ts";
import { decodeBytes, headerText, hexEscapedBytes } from "./encoded-words.ts";
import { htmlToText } from "./html-text.ts";

export interface AttachmentInfo {
  filename: string;
  mimeType: string;
  /** Bytes, as the API reports them. */
  size: number;
}

export interface MessageContent {
  text: string;
  attachments: AttachmentInfo[];
}

function header(part: MessagePart, name: string): string | undefined {
  return part.headers?.find((h) => h.name?.toLowerCase() === name)?.value;
}

/** A parameter of a structured header (`charset`, `filename`, `name`), RFC 2231 `name*=` included. */
export function headerParam(value: string | undefined, name: string): string | undefined {
  if (!value) return undefined;
  const extended = new RegExp(`;\\s*${name}\\*=\\s*"?([^'";]*)'[^']*'([^";]*)"?`, "i").exec(value);
  if (extended) return decodeBytes(hexEscapedBytes(extended[2]!, "%"), extended[1]);
  const plain = new RegExp(`;\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]+))`, "i").exec(value);
  return plain ? (plain[1] ?? plain[2]) : undefined;
}

function mimeTypeOf(part: MessagePart): string {
  const type = part.mimeType || header(part, "content-type")?.split(";")[0] || "text/plain";
  return type.trim().toLowerCase();
}

function isAttachment(part: MessagePart): boolean {
  if (mimeTypeOf(part).startsWith("multipart/")) return false;
  const disposition = header(part, "content-disposition")?.trim().toLowerCase() ?? "";
  const textual = /^text\/(plain|html)$/.test(mimeTypeOf(part));
  // A body too large to be inlined also comes as an attachment id: it is not fetched either.
  const unread = Boolean(part.body?.attachmentId) && !part.body?.data;
  return Boolean(part.filename) || disposition.startsWith("attachment") || unread || !textual;
}

function attachmentOf(part: MessagePart): AttachmentInfo {
  const named =
    part.filename ||
    headerParam(header(part, "content-disposition"), "filename") ||
    headerParam(header(part, "content-type"), "name");
  const size = Number(part.body?.size);
  return {
    filename: headerText(named) || "(unnamed)",
    mimeType: mimeTypeOf(part),
    size: Number.isFinite(size) && size >= 0 ? size : 0,
  };
}

function partText(part: MessagePart): string {
  const data = part.body?.data;
  if (!data) return "";
  const text = decodeBytes(Buffer.from(data, "base64"), headerParam(header(part, "content-type"), "charset"));
  return mimeTypeOf(part) === "text/html" ? htmlToText(text) : text;
}

/** Whether a part has plain text to offer (itself or deeper), which makes it the version to read. */
function hasPlainText(part: MessagePart): boolean {
  if (isAttachment(part)) return false;
  if (mimeTypeOf(part) === "text/plain") return partText(part).trim() !== "";
  return (part.parts ?? []).some(hasPlainText);
}

function chooseAlternative(parts: MessagePart[]): MessagePart | undefined {
  return parts.find(hasPlainText) ?? parts.findLast((p) => !isAttachment(p));
}

function walk(part: MessagePart, content: { texts: string[]; attachments: AttachmentInfo[] }, read = true) {
  const type = mimeTypeOf(part);
  if (type.startsWith("multipart/")) {
    const children = part.parts ?? [];
    const chosen = type === "multipart/alternative" ? chooseAlternative(children) : undefined;
    // The versions not read still list their attachments (an HTML version's inline images).
    for (const child of children) walk(child, content, read && (chosen === undefined || child === chosen));
    return;
  }
  if (isAttachment(part)) content.attachments.push(attachmentOf(part));
  else if (read) content.texts.push(partText(part));
}

/** Line endings made `\n`, trailing spaces gone, no blank lines at either end. */
function tidy(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(/[ \t]+$/gm, "")
    .replace(/^\n+|\s+$/g, "");
}

export function messageContent(payload: MessagePart | undefined): MessageContent {
  const content = { texts: [] as string[], attachments: [] as AttachmentInfo[] };
  if (payload) walk(payload, content);
  const text = content.texts.map(tidy).filter(Boolean).join("\n\n");
  return { text, attachments: content.attachments };
}
