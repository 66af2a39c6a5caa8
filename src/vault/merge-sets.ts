import type { WriteSet } from "./write-set.ts";

/**
 * Several write sets as one, in order: what a later set writes to the same key wins, as it would
 * have had the sets committed one after another (their puts run in this order). Lists are joined,
 * records of lists (webhooks, outbound, embedding, erasure) joined field by field, single values
 * taken from the last set naming one; a set's one dedupe record joins `dedupes`. Connector state
 * must come already checked against its sequences (StateSeqs.newer): a merged set carries none.
 */
export function mergeSets(sets: readonly WriteSet[]): WriteSet {
  if (sets.length === 1) return sets[0]!;
  const merged: Record<string, unknown> = { entries: [], created: [] };
  for (const set of sets) {
    const { dedupe, stateSeq: _checked, ...rest } = set;
    joinInto(merged, rest);
    if (dedupe) joinInto(merged, { dedupes: [[dedupe.key, dedupe.record]] });
  }
  return merged as unknown as WriteSet;
}

/** Joins `part` into `into`: arrays appended, plain records joined again, anything else replaced. */
function joinInto(into: Record<string, unknown>, part: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(part)) {
    if (value === undefined) continue;
    const have = into[key];
    if (Array.isArray(value)) into[key] = Array.isArray(have) ? [...have, ...value] : [...value];
    else if (isRecord(value)) {
      const target: Record<string, unknown> = isRecord(have) ? { ...have } : {};
      joinInto(target, value);
      into[key] = target;
    } else into[key] = value;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !ArrayBuffer.isView(value) && !Array.isArray(value);
}
