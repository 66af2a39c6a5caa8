/**
 * What writing an entry does to the entries it names (CONTRACT §5): a superseding entry closes the
 * valid time of the one it supersedes, a correction expires the one it corrects, an outcome
 * resolves its decision. Each is checked against the entries as they are (or as a batch left them).
 */
import { ValidationFailed } from "../../../src/errors/domain-errors.ts";
import type { StoredEntry } from "../../../src/memory/temporal.ts";
import { isoOf } from "../../../src/models/common.ts";
import type { EntryDraft } from "../../../src/models/entry.ts";
import type { NormalisedDraft } from "./entry-builder.ts";

/** Where a write reads entries: the vault, or the vault overlaid with a batch written so far. */
export type EntryLookup = (id: string) => StoredEntry | undefined;

/** An update another entry's write implies, and the change it is. */
export interface SideEffect {
  stored: StoredEntry;
  type: "entry.superseded" | "entry.corrected" | "decision.resolved";
}

/** A correction takes the corrected entry's place, so it inherits its valid_from by default. */
export function withCorrectionDefaults(draft: EntryDraft, lookup: EntryLookup): EntryDraft {
  if (!draft.corrects || draft.valid_from !== undefined) return draft;
  const target = lookup(draft.corrects);
  return target ? { ...draft, valid_from: target.entry.valid_from } : draft;
}

/** Changes to other entries this write implies: supersession, correction, decision resolution. */
export function sideEffects(n: NormalisedDraft, now: number, lookup: EntryLookup): SideEffect[] {
  const effects: SideEffect[] = [];
  const d = n.draft;
  if (d.supersedes)
    effects.push({ stored: supersede(lookup, d.supersedes, n.validFrom, now), type: "entry.superseded" });
  if (d.corrects) effects.push({ stored: correct(lookup, d.corrects, now), type: "entry.corrected" });
  if (d.category === "outcome")
    effects.push({ stored: resolveDecision(lookup, d.decision_id), type: "decision.resolved" });
  return effects;
}

function supersede(lookup: EntryLookup, targetId: string, validFrom: number, now: number): StoredEntry {
  const target = live(lookup, targetId, "/supersedes");
  if (validFrom <= Date.parse(target.entry.valid_from)) {
    invalid("/supersedes", "a superseding entry must become valid after the entry it supersedes");
  }
  const closesAt =
    target.entry.valid_to === null ? validFrom : Math.min(validFrom, Date.parse(target.entry.valid_to));
  return {
    ...target,
    prior_valid_to: target.prior_valid_to !== undefined ? target.prior_valid_to : target.entry.valid_to,
    entry: { ...target.entry, valid_to: isoOf(closesAt), invalidated_at: isoOf(now) },
  };
}

function correct(lookup: EntryLookup, targetId: string, now: number): StoredEntry {
  const target = live(lookup, targetId, "/corrects");
  return { ...target, entry: { ...target.entry, expired_at: isoOf(now) } };
}

function resolveDecision(lookup: EntryLookup, decisionId: string): StoredEntry {
  const decision = lookup(decisionId);
  if (decision?.entry.category !== "decision") {
    invalid("/decision_id", "decision_id must name a decision of this tenant");
  }
  return { ...decision, entry: { ...decision.entry, status: "resolved" } };
}

function live(lookup: EntryLookup, id: string, path: string): StoredEntry {
  const target = lookup(id);
  if (!target) invalid(path, "no such entry in this tenant");
  if (target.entry.expired_at !== null) invalid(path, "that entry was already corrected");
  return target;
}

function invalid(path: string, message: string): never {
  throw new ValidationFailed(`${path.slice(1)}: ${message}`, [{ path, message }]);
}
