/**
 * What an entry mentions (docs/entities.md): typed fields first, since they say outright what is
 * a name: a relationship's `subject` and `object`, the names source mappings keep in `data`
 * (`customer_name`, `company`, `name`, `email`, …) and the identifiers of the objects it is about
 * (`data`'s `customer`, `invoice`, `ticket_id`, … qualified by the source: `payments:cus_…`); then
 * the content and the other typed texts, through the recogniser (recognise.ts).
 */
import type { Entry } from "../../../models/entry.ts";
import {
  dedupe,
  type EntityKind,
  entityKey,
  identifiersIn,
  MAX_ENTITY_CHARS,
  type Mention,
  namesAndParts,
} from "./recognise.ts";

/** `data` keys whose text values are names (people, companies, deals, products). */
const NAME_KEYS =
  /^(?:name|full_name|first_name|last_name|customer_name|company|company_name|organization|organisation|organization_name|account|account_name|deal_name|contact|contact_name|requester|requester_name|assignee_name|owner_name|vendor|merchant|product|product_name|city|country|location)$/;
/** `data` keys whose values are e-mail addresses. */
const EMAIL_KEYS = /(?:^|_)e-?mail$/;
/** `data` keys whose values identify the object the entry is about. */
const OBJECT_KEYS =
  /^(?:customer|invoice|subscription|payment_intent|charge|order|order_id|ticket_id|deal_id|contact_id|company_id|issue_id|object_id|account_id)$/;
/**
 * Which identifier names the object an entry is about, first present wins: the things a source's
 * events change (an invoice, a subscription, a ticket, a deal), then the customer or account they
 * belong to (a payment, one of many alike), then the events' own ids.
 */
const OBJECT_PRIORITY = [
  "invoice",
  "subscription",
  "ticket_id",
  "deal_id",
  "issue_id",
  "order_id",
  "order",
  "object_id",
  "customer",
  "account_id",
  "company_id",
  "contact_id",
  "charge",
  "payment_intent",
];

/** The source object an entry is about, as `<source>:<id>` (its typed mention's key), if `data` names one. */
export function entryObject(entry: Entry): string | undefined {
  const system = entry.source?.system;
  if (!system) return undefined;
  const fields = new Map(dataFields(entry.data));
  for (const key of OBJECT_PRIORITY) {
    const value = fields.get(key);
    if (typeof value === "string" || typeof value === "number")
      return entityKey(`${system}:${String(value).trim()}`);
  }
  return undefined;
}

/** At most this many mentions an entry: a long text names many things, its index stays bounded. */
export const MAX_ENTRY_MENTIONS = 32;
/** Content beyond this is not read for names (its opening says what it is about). */
const MAX_TEXT_CHARS = 4096;

/** An entry's mentions, typed fields first, one per key, at most MAX_ENTRY_MENTIONS. */
export function entryMentions(entry: Entry): Mention[] {
  const typed: Mention[] = [];
  const strong = (value: unknown, kind: EntityKind) => {
    const written = typeof value === "string" ? value.trim() : undefined;
    if (written && written.length <= MAX_ENTITY_CHARS && /\p{L}|\p{N}/u.test(written))
      typed.push({ key: entityKey(written), text: written, kind, strong: true });
  };
  if (entry.category === "relationship") {
    strong(entry.subject, "name");
    strong(entry.object, "name");
  }
  const system = entry.source?.system;
  for (const [key, value] of dataFields(entry.data)) {
    if (NAME_KEYS.test(key))
      strong(value, key.includes("compan") || key.includes("organi") ? "organisation" : "name");
    else if (EMAIL_KEYS.test(key)) strong(value, "email");
    else if (OBJECT_KEYS.test(key) && system && (typeof value === "string" || typeof value === "number"))
      strong(`${system}:${String(value).trim()}`, "id");
  }
  const texts = [entry.content, entry.chosen, entry.rationale, entry.stage, ...(entry.options ?? [])];
  const read = texts.filter((t): t is string => !!t).map((t) => t.slice(0, MAX_TEXT_CHARS));
  const found: Mention[] = [];
  const parts: Mention[] = [];
  for (const t of read) {
    const named = namesAndParts(t, true);
    found.push(...identifiersIn(t), ...named.names);
    parts.push(...named.parts);
  }
  // Whole names before their parts, so a long text's cap drops parts first.
  return dedupe([...typed, ...found, ...parts]).slice(0, MAX_ENTRY_MENTIONS);
}

/** `data`'s fields at the top level and one level down (a Standard Webhooks event's `data`). */
function dataFields(data: Entry["data"]): Array<[string, unknown]> {
  if (!data) return [];
  const fields: Array<[string, unknown]> = [];
  for (const [key, value] of Object.entries(data)) {
    if (value && typeof value === "object" && !Array.isArray(value))
      for (const [inner, v] of Object.entries(value as Record<string, unknown>)) fields.push([inner, v]);
    else fields.push([key, value]);
  }
  return fields;
}
