/**
 * Builders of mail messages as the mail API returns them with `format=full` (a MIME tree with
 * base64url bodies), for the ingest command's tests and the fake's `mailbox`.
 */
import type { MailMessage, MessageHeader, MessagePart } from "../../src/sources/mail/api.ts";

export function base64url(content: string | Uint8Array): string {
  return Buffer.from(content).toString("base64url");
}

/** A leaf text part; `bytes` overrides the UTF-8 encoding of `text` (for other charsets). */
export function textPart(
  text: string,
  mimeType = "text/plain",
  charset = "UTF-8",
  bytes?: Uint8Array,
): MessagePart {
  const data = bytes ?? new TextEncoder().encode(text);
  return {
    mimeType,
    filename: "",
    headers: [{ name: "Content-Type", value: `${mimeType}; charset="${charset}"` }],
    body: { size: data.byteLength, data: base64url(data) },
  };
}

/** An attachment as the API describes it: a name, a type, a size and an id, never the bytes. */
export function attachmentPart(filename: string, mimeType: string, size: number, attachmentId: string) {
  return {
    mimeType,
    filename,
    headers: [
      { name: "Content-Type", value: `${mimeType}; name="${filename}"` },
      { name: "Content-Disposition", value: `attachment; filename="${filename}"` },
    ],
    body: { size, attachmentId },
  } satisfies MessagePart;
}

export function multipart(subtype: string, parts: MessagePart[]): MessagePart {
  return {
    mimeType: `multipart/${subtype}`,
    filename: "",
    headers: [{ name: "Content-Type", value: `multipart/${subtype}; boundary="b-${subtype}"` }],
    body: { size: 0 },
    parts,
  };
}

export interface MessageSpec {
  id: string;
  threadId: string;
  /** Epoch ms: the API's internalDate. */
  at: number;
  from: string;
  to?: string;
  cc?: string;
  subject: string;
  labelIds?: string[];
  snippet?: string;
  /** The MIME tree; a plain text part by default. */
  payload?: MessagePart;
}

export function mailMessage(spec: MessageSpec): MailMessage {
  const payload = spec.payload ?? textPart(`Body of ${spec.id}`);
  const headers: MessageHeader[] = [
    { name: "From", value: spec.from },
    { name: "To", value: spec.to ?? "ops@example.com" },
    ...(spec.cc ? [{ name: "Cc", value: spec.cc }] : []),
    { name: "Subject", value: spec.subject },
    { name: "Date", value: new Date(spec.at).toUTCString() },
    { name: "MIME-Version", value: "1.0" },
  ];
  return {
    id: spec.id,
    threadId: spec.threadId,
    labelIds: spec.labelIds ?? ["INBOX"],
    snippet: spec.snippet ?? spec.subject,
    historyId: "1000",
    internalDate: String(spec.at),
    sizeEstimate: 1000,
    payload: { ...payload, headers: [...headers, ...(payload.headers ?? [])] },
  };
}
