/**
 * An extracted draft as the entry it is written as: its category's typed fields from the draft,
 * the scope of its turns, and its provenance in `data` (the kind, the extractor, the turns' ids:
 * the hook a trust rule reads, an extracted entry trusting no more than its turns).
 */
import { isoOf } from "../models/common.ts";
import type { EntryDraft } from "../models/entry.ts";
import { subjectField } from "../models/scope.ts";
import type { ExtractedDraft } from "./extract/types.ts";
import { EXTRACTED_TAG, keyTag, keyText, kindTag } from "./tags.ts";

export interface DraftScope {
  sessionId: string;
  subject?: string;
  agentId?: string;
  extractor: string;
}

export interface DraftLinks {
  /** The ids of the turns it came from, in order. */
  turnIds: string[];
  /** The entry about the same key it replaces on valid time. */
  supersedes?: string;
  /** Set when a later statement about its key is stored already: it was true until then. */
  validTo?: number;
}

export function extractedEntryDraft(x: ExtractedDraft, scope: DraftScope, links: DraftLinks): EntryDraft {
  const tags = [EXTRACTED_TAG, kindTag(x.kind)];
  if (x.key) tags.push(keyTag(scope.subject, x.key));
  const draft: Record<string, unknown> = {
    category: x.category,
    content: x.content,
    valid_from: isoOf(x.at),
    tags,
    session_id: scope.sessionId,
    data: {
      extracted: {
        kind: x.kind,
        by: scope.extractor,
        turn_ids: links.turnIds,
        ...(x.key ? { key: keyText(x.key) } : {}),
      },
    },
    ...typedFields(x),
  };
  if (scope.subject !== undefined) draft[subjectField(x.category)] = scope.subject;
  if (scope.agentId !== undefined) draft.agent_id = scope.agentId;
  if (links.supersedes) draft.supersedes = links.supersedes;
  if (links.validTo !== undefined) draft.valid_to = isoOf(links.validTo);
  return draft as EntryDraft;
}

function typedFields(x: ExtractedDraft): Record<string, unknown> {
  if (x.category === "relationship" && x.relation) return { ...x.relation };
  if (x.category === "workflow" && x.steps) return { steps: x.steps };
  if (x.category === "decision" && x.chosen) return { chosen: x.chosen };
  return {};
}
