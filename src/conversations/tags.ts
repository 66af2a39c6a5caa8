/**
 * The tags that find a conversation's entries through the tag index (no table of their own, so
 * staging, erasure, export and import treat them as any entry): `turn` and `session:<id>` on
 * every turn, `extracted` and `extracted:<kind>` on what the extractor wrote, `key:<digest>` on an
 * entry about a subject key, so that a later statement about it finds the one it supersedes.
 */
import { createHash } from "node:crypto";
import type { ExtractKind } from "../models/conversation.ts";
import type { SubjectKey } from "./extract/types.ts";

export const TURN_TAG = "turn";
export const EXTRACTED_TAG = "extracted";
const MAX_TAG = 64;

const digest = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16);

/** `session:<id>`; an id too long for a tag is named by its digest (`session:#<16 hex>`). */
export function sessionTag(sessionId: string): string {
  const tag = `session:${sessionId}`;
  return tag.length <= MAX_TAG ? tag : `session:#${digest(sessionId)}`;
}

export const kindTag = (kind: ExtractKind) => `${EXTRACTED_TAG}:${kind}`;

/** The key of a statement within a subject's memory (or the tenant's unscoped one). */
export function keyTag(subject: string | undefined, key: SubjectKey): string {
  return `key:${digest(JSON.stringify([subject ?? null, key.holder, key.attribute]))}`;
}

/** How a key reads in an entry's `data.key`. */
export const keyText = (key: SubjectKey) => `${key.holder} · ${key.attribute}`;
