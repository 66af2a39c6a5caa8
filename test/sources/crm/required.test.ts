import { describe, expect, test } from "bun:test";
import { parseCrmMapping } from "../../../src/sources/crm/mapping.ts";
import { type CrmRecord, mapCrmRecord } from "../../../src/sources/crm/records.ts";
import { changeEventOf, mapCrmChangeEvent } from "../../../src/sources/crm/source.ts";
import { context, onlyDraft } from "../support.ts";

/** CRM records lacking what their type's entry is built from (kit/required.ts). */
const ctx = context(
  {},
  {
    crmMapping: parseCrmMapping(
      JSON.stringify({
        version: 1,
        events: { Order__c: { category: "fact", content: "Order {Order_Number__c} shipped" } },
      }),
      "test",
    ),
  },
);
const SOURCE = { system: "crm", event_id: "n-1", event_type: "x" };

function record(type: string, fields: Record<string, unknown>, recordId?: string): CrmRecord {
  return { type, recordId, fields, source: SOURCE, validFrom: undefined };
}

const change = (
  entityName: string,
  changeType: string,
  recordIds: string[],
  fields: Record<string, unknown>,
) => changeEventOf({ ChangeEventHeader: { entityName, changeType, recordIds }, ...fields }, "e-1")!;

describe("crm records: required fields", () => {
  test("a record named by neither its name nor an id is dead-lettered naming both", () => {
    expect(mapCrmRecord(record("Opportunity", { Name: "?", StageName: "Prospecting" }), ctx)).toEqual({
      ok: false,
      reason: "missing_field",
      detail: "Name or Id",
    });
    expect(mapCrmRecord(record("Account", { Name: "  " }), ctx)).toMatchObject({ detail: "Name or Id" });
    expect(mapCrmRecord(record("Task", { Subject: "n/a" }), ctx)).toMatchObject({ detail: "Subject or Id" });
    expect(mapCrmRecord(record("Case", {}), ctx)).toMatchObject({ detail: "CaseNumber or Id" });
  });

  test("the record id stands in for a name, and a placeholder name is left out", () => {
    const { draft } = onlyDraft(mapCrmRecord(record("Account", { Name: "unknown" }, "001xx01"), ctx));
    expect(draft).toMatchObject({ content: "Account 001xx01 is a CRM account.", subject: "Account 001xx01" });
  });

  test("an opportunity's stage is required, blank or a placeholder alike", () => {
    for (const StageName of [undefined, "", " ", "?", "-"])
      expect(mapCrmRecord(record("Opportunity", { Name: "Deal", StageName }, "006xx01"), ctx)).toEqual({
        ok: false,
        reason: "missing_field",
        detail: "StageName",
      });
  });

  test("a custom mapping's {Field} holding a placeholder is missing", () => {
    expect(mapCrmRecord(record("Order__c", { Order_Number__c: "?" }, "a01"), ctx)).toEqual({
      ok: false,
      reason: "missing_field",
      detail: "Order_Number__c",
    });
    const { draft } = onlyDraft(mapCrmRecord(record("Order__c", { Order_Number__c: "O-17" }, "a01"), ctx));
    expect(draft.content).toBe("Order O-17 shipped");
  });
});

describe("crm change events: what an update touched must hold a value", () => {
  test("an update setting a stage or a case status to a placeholder is dead-lettered; one not touching them is not", () => {
    expect(mapCrmChangeEvent(change("Opportunity", "UPDATE", ["006xx01"], { StageName: "?" }), ctx)).toEqual({
      ok: false,
      reason: "missing_field",
      detail: "StageName",
    });
    expect(mapCrmChangeEvent(change("Case", "UPDATE", ["500xx01"], { Status: " " }), ctx)).toEqual({
      ok: false,
      reason: "missing_field",
      detail: "Status or IsClosed",
    });
    expect(mapCrmChangeEvent(change("Case", "UPDATE", ["500xx01"], { Priority: "High" }), ctx)).toEqual({
      ok: true,
      drafts: [],
    });
    const closed = mapCrmChangeEvent(change("Case", "UPDATE", ["500xx01"], { Status: "Closed" }), ctx);
    expect(onlyDraft(closed).draft).toMatchObject({
      status: "resolved",
      content: "Case 500xx01 was resolved (status Closed).",
    });
  });

  test("a create of a record with no id and no name is dead-lettered", () => {
    expect(mapCrmChangeEvent(change("Account", "CREATE", [], { Name: "null" }), ctx)).toEqual({
      ok: false,
      reason: "missing_field",
      detail: "Name or Id",
    });
  });
});
