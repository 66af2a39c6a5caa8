import { ValidationFailed } from "../../../src/errors/domain-errors.ts";
import { isoOf, parseTimestamp } from "../../../src/models/common.ts";
import { type Entry, type EntryDraft, MAX_DATA_BYTES, SERVER_FIELDS } from "../../../src/models/entry.ts";
import type { Provenance } from "../../../src/models/origin.ts";

/** Defaults per category (CONTRACT §5). */
const CATEGORY_DEFAULTS: Partial<Record<EntryDraft["category"], Record<string, unknown>>> = {
  decision: { status: "open" },
  exception: { severity: "medium", status: "open" },
  outcome: { currency: "USD" },
};

/** Fields of a draft that never reach the stored entry as they are (server-managed ones included). */
const NOT_STORED = new Set<string>([
  "embedding",
  "tenant_id",
  "category",
  "valid_from",
  "valid_to",
  ...SERVER_FIELDS,
]);

export interface BuildContext {
  tenantId: string;
  createdBy: string;
  now: number;
  /** Stamped by the runtime, never taken from the draft (SERVER_FIELDS). */
  provenance: Provenance;
}

/** A draft with its times normalised to UTC milliseconds and its cross-field rules checked. */
export interface NormalisedDraft {
  draft: EntryDraft;
  validFrom: number;
  validTo: number | null;
}

/**
 * Checks what the schema cannot: real timestamps, valid_to after valid_from, the data size limit,
 * and that `supersedes` and `corrects` are not combined.
 */
export function normaliseDraft(draft: EntryDraft, now: number): NormalisedDraft {
  const validFrom = draft.valid_from === undefined ? now : timestamp(draft.valid_from, "/valid_from");
  const validTo = draft.valid_to == null ? null : timestamp(draft.valid_to, "/valid_to");
  if (validTo !== null && validTo <= validFrom) fail("/valid_to", "valid_to must be after valid_from");
  if (draft.supersedes && draft.corrects) fail("/corrects", "give supersedes or corrects, not both");
  const malformed = malformedText(draft, "");
  if (malformed) fail(malformed.path, malformed.message);
  if (draft.data !== undefined && Buffer.byteLength(JSON.stringify(draft.data)) > MAX_DATA_BYTES) {
    fail("/data", `data must be at most ${MAX_DATA_BYTES} bytes as JSON`);
  }
  return { draft, validFrom, validTo };
}

/** The entry as stored and returned; `id` is decided by the caller (see entry-id.ts). */
export function buildEntry(n: NormalisedDraft, id: string, ctx: BuildContext): Entry {
  const typed: Record<string, unknown> = { ...CATEGORY_DEFAULTS[n.draft.category] };
  for (const [key, value] of Object.entries(n.draft)) {
    if (!NOT_STORED.has(key) && value !== undefined) typed[key] = value;
  }
  return {
    id,
    tenant_id: ctx.tenantId,
    category: n.draft.category,
    content: n.draft.content,
    ...typed,
    valid_from: isoOf(n.validFrom),
    valid_to: n.validTo === null ? null : isoOf(n.validTo),
    agent_id: n.draft.agent_id ?? ctx.createdBy,
    recorded_at: isoOf(ctx.now),
    expired_at: null,
    invalidated_at: null,
    created_by: ctx.createdBy,
    origin: ctx.provenance.origin,
    trust: ctx.provenance.trust,
  } as Entry;
}

/**
 * Strings must be well-formed UTF-16 (a lone surrogate cannot be stored and read back as sent), and
 * `__proto__` is refused as a key, since it cannot round-trip through JSON objects safely.
 */
function malformedText(value: unknown, path: string): { path: string; message: string } | undefined {
  if (typeof value === "string")
    return value.isWellFormed() ? undefined : { path: path || "/", message: "text has a lone surrogate" };
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = malformedText(item, `${path}/${i}`);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === "object") {
    for (const key of Object.keys(value)) {
      if (key === "__proto__" || !key.isWellFormed())
        return { path: `${path}/${key}`, message: "key not allowed" };
      const found = malformedText((value as Record<string, unknown>)[key], `${path}/${key}`);
      if (found) return found;
    }
  }
  return undefined;
}

function timestamp(value: string, path: string): number {
  const ms = parseTimestamp(value);
  if (ms === undefined) fail(path, "not a valid RFC 3339 timestamp");
  return ms;
}

function fail(path: string, message: string): never {
  throw new ValidationFailed(`${path.slice(1)}: ${message}`, [{ path, message }]);
}
