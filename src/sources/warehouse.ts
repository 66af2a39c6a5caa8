/**
 * `warehouse` (a scheduled warehouse export): a job posts rows already shaped as entries, with
 * `Authorization: Bearer <WAREHOUSE_WEBHOOK_TOKEN>`. The body is a JSON array of rows or
 * `{rows: [...]}`; each row `{event_id, kind, content, …}` becomes an entry of its `kind` (one of the
 * six categories; other kinds are ignored) with that category's typed fields passed through, and
 * its `event_id` dedupes. The tenant's schema judges the values: a row it refuses is dead-lettered.
 */
import { BadRequest } from "../errors/domain-errors.ts";
import type { Category } from "../models/category.ts";
import { defineSource, type Event, type EventMapping, freeText, type Required } from "./kit/define-source.ts";
import { amountOf, currencyOf, isoFrom, text } from "./kit/draft.ts";
import { isRecord } from "./kit/request.ts";
import { tokenScheme } from "./kit/signature.ts";

const lower = (value: unknown) => text(value)?.toLowerCase();

/** A JSON column exported as text (`'{"a":1}'`, `'["x"]'`) is read as the value it encodes. */
function decoded(value: unknown): unknown {
  if (typeof value !== "string" || !/^\s*[[{]/.test(value)) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** A list column: an array, JSON text of one, or (tags) comma-separated text. */
function listOf(value: unknown, commaSeparated = false): string[] | undefined {
  const list = decoded(value);
  if (Array.isArray(list)) return list.map(text).filter((item): item is string => item !== undefined);
  if (commaSeparated && typeof list === "string")
    return list
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean);
  return undefined;
}

const money = (row: Event) => ({ amount: amountOf(row.amount), currency: currencyOf(row.currency) });

/** Each category's typed fields, as the row's columns of the same names carry them. */
const TYPED: Record<Category, (row: Event) => Record<string, unknown>> = {
  // A decision's status is server-managed (resolved by its outcome): a row's `status` is not taken.
  decision: (row) => ({
    rationale: text(row.rationale),
    options: listOf(row.options),
    chosen: text(row.chosen),
    stage: text(row.stage),
    ...money(row),
  }),
  exception: (row) => ({ severity: lower(row.severity), status: lower(row.status) }),
  fact: () => ({}),
  workflow: (row) => ({ steps: listOf(row.steps) }),
  relationship: (row) => ({
    subject: text(row.subject),
    predicate: text(row.predicate),
    object: text(row.object),
  }),
  outcome: (row) => ({
    // A row naming its decision links to it directly (it must be a decision of this tenant).
    decision_id: text(row.decision_id),
    result: lower(row.result),
    ...money(row),
  }),
};

/**
 * The columns each kind of row is built from, beyond its content: a relationship is its subject,
 * predicate and object, an outcome its result. Other typed fields are the schema's to judge.
 */
const REQUIRED: Record<Category, readonly Required[]> = {
  decision: [],
  exception: [],
  fact: [],
  workflow: [],
  relationship: ["subject", "predicate", "object"],
  outcome: ["result"],
};

/**
 * What the row is about (`object_ref`): decisions about it are what a later outcome row with the
 * same `object_ref` and no `decision_id` resolves. Such an outcome with no decision to resolve, or
 * with neither reference, is written as a fact tagged `outcome` (its own event id stands in as
 * the object, which no decision names).
 */
function objectOf(category: Category) {
  if (category !== "outcome") return (row: Event) => text(row.object_ref);
  return (row: Event) =>
    text(row.decision_id) ? undefined : (text(row.object_ref) ?? `row:${text(row.event_id) ?? ""}`);
}

function mappingOf(category: Category): EventMapping {
  return {
    category,
    required: [freeText("content"), ...REQUIRED[category]],
    // Free text: read as written ("?" is a row's content like any other).
    content: (row) => text(row.content)!,
    fields: (row) => ({
      ...TYPED[category](row),
      // An unreadable valid_to stays as given, so the schema refuses the row rather than it lasting forever.
      valid_to:
        row.valid_to === undefined || row.valid_to === null
          ? undefined
          : (isoFrom(row.valid_to) ?? row.valid_to),
      agent_id: text(row.agent_id)?.slice(0, 128),
    }),
    tags: (row) => listOf(row.tags, true) ?? [],
    data: (row) => {
      const data = decoded(row.data);
      return isRecord(data) ? data : {};
    },
    object: objectOf(category),
    // A row may say what it does to its `object_ref` (docs/source-mappings.md, "Lifecycles").
    lifecycle: (row) => (row.lifecycle === "state" || row.lifecycle === "close" ? row.lifecycle : undefined),
    validFrom: (row) => row.valid_from,
  };
}

export const warehouseSource = defineSource({
  id: "warehouse",
  secrets: ["WAREHOUSE_WEBHOOK_TOKEN"],
  verify: tokenScheme({ secret: "WAREHOUSE_WEBHOOK_TOKEN" }),
  events: (body) => {
    const rows = Array.isArray(body) ? body : isRecord(body) ? body.rows : undefined;
    if (!Array.isArray(rows))
      throw new BadRequest("a warehouse export is a JSON array of rows or {rows: [...]}");
    return rows;
  },
  eventId: (row) => row.event_id,
  eventType: (row) => row.kind,
  // Kinds are the category names, whatever case the export writes them in.
  row: (kind) => kind.toLowerCase(),
  mappings: {
    decision: mappingOf("decision"),
    exception: mappingOf("exception"),
    fact: mappingOf("fact"),
    workflow: mappingOf("workflow"),
    relationship: mappingOf("relationship"),
    outcome: mappingOf("outcome"),
  },
});
