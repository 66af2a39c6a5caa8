/**
 * CRM records → drafts (SOURCES.md, `crm`), shared by outbound messages and streamed change
 * events: Opportunity → decision, Case → exception, Contact/Account → relationship,
 * Task → fact, any other type through the custom mapping file, else `unmapped_event`.
 */
import { Value } from "@sinclair/typebox/value";
import { ENTRY_INPUT, type EntryDraft } from "../../models/entry.ts";
import { amountOf, clip, currencyOf, finish, isoFrom, tagsOf, truthy } from "../kit/draft.ts";
import { anyOf, at, missingField, type Required, valueText } from "../kit/required.ts";
import type { IngestDraft, MapResult, SourceContext } from "../types.ts";
import { fillFields, fillTemplate } from "./mapping.ts";

const SYSTEM = "crm";

/** One record to map: its type, its fields and where it came from. */
export interface CrmRecord {
  type: string;
  /** The record id: the `Id` field, or a change event's record id. */
  recordId: string | undefined;
  fields: Readonly<Record<string, unknown>>;
  source: { system: string; event_id: string; event_type: string };
  /** RFC 3339 time of the change when the event carries one. */
  validFrom: string | undefined;
  /** Change events only: CREATE, UPDATE, ... (partial UPDATEs carry only the changed fields). */
  changeType?: string;
}

/**
 * A field as text, or undefined when it holds no value (blank, a placeholder: kit/required.ts);
 * `Account.Name` walks into related records.
 */
export function fieldText(fields: Readonly<Record<string, unknown>>, path: string): string | undefined {
  return valueText(at(fields, path));
}

function has(record: CrmRecord, ...names: string[]): boolean {
  return names.some((n) => Object.hasOwn(record.fields, n));
}

function base(record: CrmRecord, kind: string) {
  return {
    tags: tagsOf("crm", kind.toLowerCase()),
    data: {
      object_type: record.type,
      record_id: record.recordId,
      change_type: record.changeType,
      ...record.fields,
    },
    valid_from: record.validFrom,
    source: record.source,
  };
}

function keyOf(record: CrmRecord): string | undefined {
  return record.recordId ? `crm:${record.type}:${record.recordId}` : undefined;
}

function ok(...drafts: IngestDraft[]): MapResult {
  return { ok: true, drafts };
}

/** A change the mapping does not cover (a delete, a gap, an update of unmapped fields): ignored. */
const NOTHING: MapResult = { ok: true, drafts: [], ignored: true };

function isPartialUpdate(record: CrmRecord): boolean {
  return record.changeType !== undefined && record.changeType !== "CREATE";
}

// ── standard objects ────────────────────────────────────────────────────────────────────────

/**
 * What each standard object's entry is built from (kit/required.ts), as paths into its fields with
 * `Id` the record id: a name for the record (its own, else its id), and an opportunity's stage.
 */
export const CRM_REQUIRED = {
  Opportunity: [anyOf("Name", "Id"), "StageName"],
  Case: [anyOf("CaseNumber", "Id")],
  Contact: [anyOf("Name", "Name.FirstName", "Name.LastName", "FirstName", "LastName", "Email", "Id")],
  Account: [anyOf("Name", "Id")],
  Task: [anyOf("Subject", "Id")],
} satisfies Record<string, readonly Required[]>;

/** The dead letter of a record lacking what its type requires, or undefined. */
function lacking(record: CrmRecord, rules: readonly Required[]): MapResult | undefined {
  const view = record.recordId === undefined ? record.fields : { ...record.fields, Id: record.recordId };
  const missing = missingField(view, rules);
  return missing === undefined ? undefined : { ok: false, reason: "missing_field", detail: missing };
}

function mapOpportunity(record: CrmRecord): MapResult {
  if (isPartialUpdate(record) && !has(record, "StageName")) return NOTHING;
  const lacks = lacking(record, CRM_REQUIRED.Opportunity);
  if (lacks) return lacks;
  const f = (name: string) => fieldText(record.fields, name);
  const stageName = f("StageName")!;
  const closed = truthy(f("IsClosed"));
  const won = /^closed[ _]?won$/i.test(stageName) || (closed && truthy(f("IsWon")));
  const lost = !won && (/^closed[ _]?lost$/i.test(stageName) || (closed && f("IsWon") === "false"));
  const name = f("Name") ?? `Opportunity ${record.recordId!}`;
  const amount = amountOf(f("Amount"));
  const currency = currencyOf(f("CurrencyIsoCode"));
  const closeDate = f("CloseDate");
  const money = amount !== undefined ? ` for ${amount}${currency ? ` ${currency}` : ""}` : "";
  const when = closeDate ? ` (close date ${closeDate})` : "";
  const content = won
    ? `Opportunity ${name} was closed won${money}${when}.`
    : lost
      ? `Opportunity ${name} was closed lost${when}.`
      : `Opportunity ${name} moved to stage ${stageName}.`;
  const draft = finish({
    category: "decision",
    content,
    stage: won ? "closed_won" : lost ? "closed_lost" : clip(stageName, 128),
    chosen: clip(stageName, 4096),
    // Only a won deal's amount is revenue (CONTRACT §8); others keep it in data.
    amount: won ? amount : undefined,
    currency: won ? currency : undefined,
    ...base(record, "opportunity"),
  });
  // Each stage is the opportunity's state; closed won or lost, its last.
  return ok({ draft, object_key: keyOf(record), lifecycle: won || lost ? "close" : "state" });
}

function severityOf(priority: string | undefined): "low" | "medium" | "high" | "critical" {
  const p = priority?.toLowerCase() ?? "";
  if (/critical|urgent|p1|blocker/.test(p)) return "critical";
  if (/high|p2/.test(p)) return "high";
  if (/low|p4/.test(p)) return "low";
  return "medium";
}

/** An update of a case is about its state: one naming Status or IsClosed must give it a value. */
const CASE_UPDATE_REQUIRED = [...CRM_REQUIRED.Case, anyOf("Status", "IsClosed")];

function mapCase(record: CrmRecord): MapResult {
  if (isPartialUpdate(record) && !has(record, "Status", "IsClosed")) return NOTHING;
  const lacks = lacking(record, isPartialUpdate(record) ? CASE_UPDATE_REQUIRED : CRM_REQUIRED.Case);
  if (lacks) return lacks;
  const f = (name: string) => fieldText(record.fields, name);
  const status = f("Status");
  const resolved = truthy(f("IsClosed")) || /^(closed|resolved)/i.test(status ?? "");
  const label = `Case ${f("CaseNumber") ?? record.recordId!}`;
  const subject = f("Subject");
  const detail = [f("Priority") && `priority ${f("Priority")}`, status && `status ${status}`]
    .filter(Boolean)
    .join(", ");
  const content = `${label} ${resolved ? "was resolved" : "was opened"}${subject ? `: ${subject}` : ""}${detail ? ` (${detail})` : ""}.`;
  const draft = finish({
    category: "exception",
    content,
    severity: severityOf(f("Priority")),
    status: resolved ? "resolved" : "open",
    ...base(record, "case"),
  });
  // Every state of a case supersedes the previous one; a closed case ends it, resolving the open exception.
  return ok({ draft, object_key: keyOf(record), lifecycle: resolved ? "close" : "state" });
}

function personName(record: CrmRecord): string | undefined {
  const f = (name: string) => fieldText(record.fields, name);
  const joined = (first?: string, last?: string) => [first, last].filter(Boolean).join(" ") || undefined;
  // Change events carry Name as a compound {FirstName, LastName}.
  return (
    f("Name") ??
    joined(f("Name.FirstName"), f("Name.LastName")) ??
    joined(f("FirstName"), f("LastName")) ??
    f("Email")
  );
}

function mapContact(record: CrmRecord): MapResult {
  if (
    isPartialUpdate(record) &&
    !has(record, "AccountId", "Account", "Name", "FirstName", "LastName", "Email")
  )
    return NOTHING;
  const lacks = lacking(record, CRM_REQUIRED.Contact);
  if (lacks) return lacks;
  const name = personName(record) ?? `Contact ${record.recordId!}`;
  const account = fieldText(record.fields, "Account.Name") ?? fieldText(record.fields, "AccountId");
  const email = fieldText(record.fields, "Email");
  const draft = finish({
    category: "relationship",
    content: `${name} ${account ? `works at ${account}` : "is a CRM contact"}${email ? ` (${email})` : ""}.`,
    subject: clip(name, 1024),
    predicate: account ? "works_at" : "is_contact",
    object: clip(account ?? "CRM", 1024),
    ...base(record, "contact"),
  });
  return ok({ draft, object_key: keyOf(record), supersede_previous: true });
}

function mapAccount(record: CrmRecord): MapResult {
  if (isPartialUpdate(record) && !has(record, "Name", "Type", "Industry")) return NOTHING;
  const lacks = lacking(record, CRM_REQUIRED.Account);
  if (lacks) return lacks;
  const f = (name: string) => fieldText(record.fields, name);
  const name = f("Name") ?? `Account ${record.recordId!}`;
  const type = f("Type");
  const industry = f("Industry");
  const detail = [type, industry && `industry ${industry}`].filter(Boolean).join(", ");
  const draft = finish({
    category: "relationship",
    content: `${name} is a CRM account${detail ? ` (${detail})` : ""}.`,
    subject: clip(name, 1024),
    predicate: "is_account",
    object: clip(type ?? "CRM", 1024),
    ...base(record, "account"),
  });
  return ok({ draft, object_key: keyOf(record), supersede_previous: true });
}

function mapTask(record: CrmRecord): MapResult {
  const lacks = lacking(record, CRM_REQUIRED.Task);
  if (lacks) return lacks;
  const f = (name: string) => fieldText(record.fields, name);
  const subject = f("Subject") ?? `Task ${record.recordId!}`;
  const detail = [f("Status") && `status ${f("Status")}`, f("ActivityDate") && `due ${f("ActivityDate")}`]
    .filter(Boolean)
    .join(", ");
  const draft = finish({
    category: "fact",
    content: `Task ${subject}${detail ? ` (${detail})` : ""}.`,
    ...base(record, "task"),
  });
  return ok({ draft, object_key: keyOf(record) });
}

// ── custom mapping ──────────────────────────────────────────────────────────────────────────

function mapCustom(record: CrmRecord, ctx: SourceContext): MapResult {
  const events = ctx.crmMapping?.events;
  const rule = events && Object.hasOwn(events, record.type) ? events[record.type] : undefined;
  if (!rule) return { ok: false, reason: "unmapped_event", detail: record.type };
  const lookup = (name: string) => fieldText(record.fields, name);
  const content = fillTemplate(rule.content, lookup);
  if (!content.ok) return { ok: false, reason: "missing_field", detail: content.missing };
  const fields = fillFields(rule, lookup);
  if (!fields.ok) return { ok: false, reason: "missing_field", detail: fields.missing };
  const tags: string[] = [];
  for (const tag of rule.tags ?? []) {
    const filled = fillTemplate(tag, lookup);
    if (!filled.ok) return { ok: false, reason: "missing_field", detail: filled.missing };
    tags.push(filled.value);
  }
  const { tags: baseTags, ...rest } = base(record, record.type);
  const draft = finish({
    ...fields.value,
    ...rest,
    category: rule.category,
    content: content.value,
    tags: tagsOf(...(baseTags ?? []), ...tags),
  } as EntryDraft);
  // The file is validated at load, but filled values (an amount that is not a number) may still not fit.
  const { category, ...body } = draft;
  const fault = Value.Errors(ENTRY_INPUT[category], body).First();
  if (fault) return { ok: false, reason: "invalid_mapping_output", detail: `${fault.path} ${fault.message}` };
  return ok({ draft, object_key: keyOf(record) });
}

/** Maps one record by its type (standard objects first, then the custom mapping). */
export function mapCrmRecord(record: CrmRecord, ctx: SourceContext): MapResult {
  switch (record.type) {
    case "Opportunity":
      return mapOpportunity(record);
    case "Case":
      return mapCase(record);
    case "Contact":
      return mapContact(record);
    case "Account":
      return mapAccount(record);
    case "Task":
      return mapTask(record);
    default:
      return mapCustom(record, ctx);
  }
}

// ── streamed change events ──────────────────────────────────────────────────────────────────

export interface CrmChangeEvent {
  entityName: string;
  changeType: string;
  recordIds: string[];
  /** The changed fields (the event payload without its ChangeEventHeader). */
  fields: Record<string, unknown>;
  /** The dedupe id; default `{entityName}:{changeType}:{recordIds}:{commitTimestamp}`. */
  eventId?: string;
  /** Epoch ms of the commit (ChangeEventHeader.commitTimestamp). */
  commitTimestamp?: number;
}

/** Reads a change event's payload (`{ChangeEventHeader: {...}, ...fields}`); undefined if it is not one. */
export function changeEventOf(payload: unknown, eventId?: string): CrmChangeEvent | undefined {
  if (typeof payload !== "object" || payload === null) return undefined;
  const { ChangeEventHeader: header, ...fields } = payload as Record<string, unknown>;
  if (typeof header !== "object" || header === null) return undefined;
  const h = header as Record<string, unknown>;
  const recordIds = Array.isArray(h.recordIds)
    ? h.recordIds.filter((id): id is string => typeof id === "string" && id !== "")
    : [];
  if (typeof h.entityName !== "string" || typeof h.changeType !== "string") return undefined;
  const commit = typeof h.commitTimestamp === "number" ? h.commitTimestamp : undefined;
  return {
    entityName: h.entityName,
    changeType: h.changeType,
    recordIds,
    fields,
    eventId,
    commitTimestamp: commit,
  };
}

function changeEventId(event: CrmChangeEvent): string {
  return (
    event.eventId ??
    `${event.entityName}:${event.changeType}:${event.recordIds.join(",")}:${event.commitTimestamp ?? ""}`
  );
}

/**
 * Maps a streamed change event like an outbound message of the same type, one record per
 * record id. DELETE, UNDELETE and GAP_* events, and updates touching nothing the mapping
 * reads, give no drafts (ok with an empty list): they are normal traffic, not failures.
 */
export function mapCrmChangeEvent(event: CrmChangeEvent, ctx: SourceContext): MapResult {
  if (!["CREATE", "UPDATE"].includes(event.changeType)) return NOTHING;
  const source = {
    system: SYSTEM,
    event_id: clip(changeEventId(event), 512),
    event_type: clip(`${event.entityName}.${event.changeType}`, 128),
  };
  const ids = event.recordIds.length > 0 ? event.recordIds : [undefined];
  const drafts: IngestDraft[] = [];
  for (const recordId of ids) {
    const record: CrmRecord = {
      type: event.entityName,
      recordId,
      fields: event.fields,
      source,
      validFrom: isoFrom(event.commitTimestamp),
      changeType: event.changeType,
    };
    const result = mapCrmRecord(record, ctx);
    if (!result.ok) return result;
    drafts.push(...result.drafts);
  }
  return ok(...drafts);
}
