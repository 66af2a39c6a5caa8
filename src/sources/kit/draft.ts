/**
 * Small, total helpers for turning untrusted source payloads into drafts that satisfy the
 * entry schemas (CONTRACT §5): bounded strings, bounded `data`, RFC 3339 UTC times.
 * Every helper accepts `unknown` and answers `undefined` rather than throwing.
 */
import { type EntryDraft, MAX_DATA_BYTES } from "../../models/entry.ts";
import type { SourceEvent } from "../types.ts";

export const MAX_CONTENT = 32_768;
const MAX_TAGS = 64;
const MAX_TAG = 64;
/** Latest instant whose ISO form still has a 4-digit year (the Timestamp pattern needs one). */
const MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
/** Below this a number is taken as epoch seconds: as milliseconds it would be early 1973. */
const SECONDS_CUTOFF = 1e11;

/** Cuts a string to `max` UTF-16 units without splitting a surrogate pair. */
export function clip(value: string, max: number): string {
  if (value.length <= max) return value;
  const end = /[\uD800-\uDBFF]/.test(value.charAt(max - 1)) ? max - 1 : max;
  return `${value.slice(0, end - 1)}…`;
}

/** A non-blank string (trimmed), a finite number or a boolean as text; otherwise undefined. */
export function text(value: unknown): string | undefined {
  if (typeof value === "string") return value.trim() || undefined;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "boolean") return String(value);
  return undefined;
}

/** A finite number, also from a numeric string ("12000.50"). */
export function numberOf(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value !== "string" || value.trim() === "") return undefined;
  const n = Number(value.trim());
  return Number.isFinite(n) ? n : undefined;
}

/** An amount the entry schema accepts (|x| ≤ 1e15). */
export function amountOf(value: unknown): number | undefined {
  const n = numberOf(value);
  return n !== undefined && Math.abs(n) <= 1e15 ? n : undefined;
}

/** An ISO 4217 code, upper-cased, or undefined. */
export function currencyOf(value: unknown): string | undefined {
  const code = text(value)?.toUpperCase();
  return code && /^[A-Z]{3}$/.test(code) ? code : undefined;
}

export function truthy(value: unknown): boolean {
  return value === true || (typeof value === "string" && value.trim().toLowerCase() === "true");
}

/** Epoch ms (or s, see SECONDS_CUTOFF) → RFC 3339 UTC with milliseconds. */
export function isoFromEpoch(value: unknown): string | undefined {
  const n = numberOf(value);
  if (n === undefined || n < 0) return undefined;
  const ms = n < SECONDS_CUTOFF ? n * 1000 : n;
  return ms <= MAX_MS ? new Date(Math.trunc(ms)).toISOString() : undefined;
}

/** An event time in any usual form (epoch number, numeric string, RFC 3339) → RFC 3339 UTC ms. */
export function isoFrom(value: unknown): string | undefined {
  if (typeof value === "number" || (typeof value === "string" && /^\s*\d+(\.\d+)?\s*$/.test(value))) {
    return isoFromEpoch(value);
  }
  if (typeof value !== "string") return undefined;
  const rfc3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})$/;
  if (!rfc3339.test(value.trim())) return undefined;
  const ms = Date.parse(value.trim().replace(" ", "T"));
  return Number.isFinite(ms) && ms >= 0 && ms <= MAX_MS ? new Date(ms).toISOString() : undefined;
}

/** Tags the schema accepts: 1–64 chars each, at most 64, no duplicates. */
export function tagsOf(...candidates: unknown[]): string[] {
  const tags = new Set<string>();
  for (const candidate of candidates) {
    const tag = text(candidate);
    if (tag && tags.size < MAX_TAGS) tags.add(clip(tag, MAX_TAG));
  }
  return [...tags];
}

function jsonSize(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? "");
  } catch {
    return Number.POSITIVE_INFINITY; // cycles or absurd depth: never kept as is
  }
}

function shrink(value: unknown): unknown {
  if (typeof value === "string") return clip(value, 512);
  if (jsonSize(value) <= 1024) return value;
  let json = "[unserialisable]";
  try {
    json = JSON.stringify(value) ?? json;
  } catch {}
  return clip(json, 512);
}

/**
 * `data` within MAX_DATA_BYTES: undefined values dropped, large values cut, and if it is still
 * too large, trailing keys dropped (marked `_truncated`). Useful attributes come first in callers.
 */
export function boundedData(data: Record<string, unknown>): Record<string, unknown> {
  const defined = Object.fromEntries(Object.entries(data).filter(([, v]) => v !== undefined));
  if (jsonSize(defined) <= MAX_DATA_BYTES) return defined;
  const budget = MAX_DATA_BYTES - 64;
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(defined)) {
    kept[key] = shrink(value);
    if (jsonSize(kept) > budget) {
      delete kept[key];
      kept._truncated = true;
      break;
    }
  }
  return kept;
}

/** `source` of an entry written from a webhook event (CONTRACT §7). */
export function sourceOf(
  system: string,
  event: SourceEvent,
): { system: string; event_id: string; event_type: string } {
  return {
    system,
    event_id: clip(event.event_id, 512),
    event_type: clip(event.event_type || "unknown", 128),
  };
}

/**
 * A template ends its sentence with a full stop; when the text it ends with already did ("…51
 * active seats." + "."), the template's stop is dropped. An ellipsis ("wait...") is the text's own
 * and stays as written.
 */
export function oneFullStop(content: string): string {
  return /[.!?…]\.$/.test(content) && !content.endsWith("...") ? content.slice(0, -1) : content;
}

/** Drops undefined fields and bounds `content` and `data`, so the draft is what the schema checks. */
export function finish<D extends EntryDraft>(draft: D): D {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(draft)) if (value !== undefined) out[key] = value;
  out.content = clip(oneFullStop(String(draft.content).trim()) || "(no content)", MAX_CONTENT);
  if (draft.data) out.data = boundedData(draft.data);
  if (Array.isArray(draft.tags) && draft.tags.length === 0) delete out.tags;
  return out as D;
}

/** A text excerpt of a free-text field (an issue body, a comment): trimmed and clipped; undefined when blank. */
export function excerpt(value: unknown, max = 500): string | undefined {
  const said = typeof value === "string" ? value.trim() : "";
  return said ? clip(said, max) : undefined;
}

/** A person as the entries name them: `Name <email>`, or whichever of the two is known. */
export function nameAndEmail(name: string | undefined, email: string | undefined): string | undefined {
  return name && email ? `${name} <${email}>` : (name ?? email);
}
