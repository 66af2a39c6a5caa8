import type { Entry } from "../../../src/models/entry.ts";
import type { LexicalField } from "../../../src/search/lexical/lexical-index.ts";

/**
 * What of an entry BM25 indexes, and how much each field's words count (BM25F; lexical-index.ts).
 * The content is the entry; tags are labels its writer chose, as telling as its words; typed
 * fields that name things (a relationship's subject and object, a decision's choice) count fully,
 * those that describe (a rationale, options, steps, a predicate) and the source's system and event
 * type ("invoice.paid") count half, so they help a query that names them without outranking an
 * entry that says it. Enumerations (severity, status, result) and amounts are not indexed: their
 * words rarely say what an entry is about. `data`'s text values (dataText) count a quarter: a
 * payment's customer name or receipt e-mail kept there finds the entry, while an entry that says
 * the words in its content still ranks first.
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
  data: 0.25,
} as const;

/** How much of `data` is indexed: each value, and all of them together (UTF-16 units). */
const DATA_VALUE_CHARS = 256;
const DATA_CHARS = 2048;

/**
 * The words `data` holds for people: its text values and the texts of its lists, at the top level
 * and one level down (a Standard Webhooks event's `data`, a customer object), in key order until
 * the budget is spent. Identifiers (`id`, `*_id`, `*_ids`) are left out: they are for joins, and
 * the content names what an id stands for.
 */
export function dataText(data: Readonly<Record<string, unknown>> | undefined): string | undefined {
  if (!data) return undefined;
  const texts: string[] = [];
  let budget = DATA_CHARS;
  const keep = (value: unknown, depth: number) => {
    if (budget <= 0) return;
    if (typeof value === "string") {
      const text = value.trim().slice(0, Math.min(DATA_VALUE_CHARS, budget));
      if (!text) return;
      texts.push(text);
      budget -= text.length;
    } else if (depth >= 2 || value === null || typeof value !== "object") return;
    else if (Array.isArray(value)) for (const item of value) keep(item, depth + 1);
    else
      for (const [key, inner] of Object.entries(value))
        if (key !== "id" && !/_ids?$/.test(key)) keep(inner, depth + 1);
  };
  keep(data, 0);
  return texts.length ? texts.join("\n") : undefined;
}

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
  // A relationship's `subject` names someone; another entry's is its scope's id (scope.ts), not words.
  add("subject", entry.category === "relationship" ? entry.subject : undefined);
  add("object", entry.object);
  add("chosen", entry.chosen);
  add("predicate", entry.predicate);
  add("rationale", entry.rationale);
  add("options", entry.options);
  add("steps", entry.steps);
  add("stage", entry.stage);
  add("source", entry.source && [entry.source.system, entry.source.event_type ?? ""]);
  add("data", dataText(entry.data));
  return fields;
}
