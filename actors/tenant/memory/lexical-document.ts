import type { LexicalField } from "../../../src/embedding/lexical-index.ts";
import type { Entry } from "../../../src/models/entry.ts";

/**
 * What of an entry BM25 indexes, and how much each field's words count (BM25F; lexical-index.ts).
 * The content is the entry; tags are labels its writer chose, as telling as its words; typed
 * fields that name things (a relationship's subject and object, a decision's choice) count fully,
 * those that describe (a rationale, options, steps, a predicate) and the source's system and event
 * type ("invoice.paid") count half, so they help a query that names them without outranking an
 * entry that says it. Enumerations (severity, status, result), amounts and `data` are not indexed:
 * their words rarely say what an entry is about.
 *
 * Tags were measured on the evaluation set (neutral there: its tags are session numbers); the
 * typed fields' weights are judgement, as the set holds facts only. Changing a weight changes
 * LEXICAL_SCHEME, so saved indexes are rebuilt.
 */
export const FIELD_WEIGHTS = {
  content: 1,
  tags: 1,
  subject: 1,
  object: 1,
  chosen: 1,
  predicate: 0.5,
  rationale: 0.5,
  options: 0.5,
  steps: 0.5,
  stage: 0.5,
  source: 0.5,
} as const;

/** Saved with the BM25 index: another table of weights makes a saved index stale. */
export const LEXICAL_SCHEME = `entry fields ${JSON.stringify(FIELD_WEIGHTS)}`;

type Field = keyof typeof FIELD_WEIGHTS;

/** The entry's indexed fields, each with its weight; absent or empty fields are left out. */
export function lexicalDocument(entry: Entry): LexicalField[] {
  const fields: LexicalField[] = [];
  const add = (field: Field, text: string | readonly string[] | undefined) => {
    const joined = typeof text === "string" ? text : text?.join("\n");
    if (joined) fields.push({ text: joined, weight: FIELD_WEIGHTS[field] });
  };
  add("content", entry.content);
  add("tags", entry.tags);
  add("subject", entry.subject);
  add("object", entry.object);
  add("chosen", entry.chosen);
  add("predicate", entry.predicate);
  add("rationale", entry.rationale);
  add("options", entry.options);
  add("steps", entry.steps);
  add("stage", entry.stage);
  add("source", entry.source && [entry.source.system, entry.source.event_type ?? ""]);
  return fields;
}
