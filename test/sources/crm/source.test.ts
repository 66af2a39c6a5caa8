import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { BadRequest, Unauthorized } from "../../../src/errors/domain-errors.ts";
import { parseCrmMapping } from "../../../src/sources/crm/mapping.ts";
import { changeEventOf, mapCrmChangeEvent, crmSource as source } from "../../../src/sources/crm/source.ts";
import type { SourceEvent } from "../../../src/sources/types.ts";
import { escapeXml, outboundEnvelope } from "../../fakes/crm-outbound.ts";
import { context, onlyDraft, request, validDrafts, verifySync } from "../support.ts";

const SECRET = "crm-hmac-secret-0f9e8d7c6b5a";
const ORG = "00D5e000000AbCdEAK";
const ctx = context({ CRM_WEBHOOK_SECRET: SECRET });

type Fields = Record<string, string | null | { raw: string }>;
interface Note {
  id: string;
  type: string;
  fields: Fields;
}

function sObject(type: string, fields: Fields): string {
  const inner = Object.entries(fields)
    .map(([k, v]) =>
      v === null
        ? `<sf:${k} xsi:nil="true"/>`
        : typeof v === "string"
          ? `<sf:${k}>${escapeXml(v)}</sf:${k}>`
          : `<sf:${k}>${v.raw}</sf:${k}>`,
    )
    .join("");
  return `<sObject xsi:type="sf:${type}" xmlns:sf="urn:sobject.enterprise.soap.sforce.com">${inner}</sObject>`;
}

function outbound(notes: Note[], org = ORG): string {
  const body = notes
    .map((n) => `<Notification><Id>${n.id}</Id>${sObject(n.type, n.fields)}</Notification>`)
    .join("");
  return outboundEnvelope(body, org);
}

function signed(xml: string, secret = SECRET) {
  return request(xml, {
    "content-type": "text/xml",
    "x-crm-signature": createHmac("sha256", secret).update(xml).digest("base64"),
  });
}

function parseOne(type: string, fields: Fields, c = ctx): SourceEvent {
  const events = source.parse(signed(outbound([{ id: "04l5e000000N0001", type, fields }])), c);
  expect(events).toHaveLength(1);
  return events[0]!;
}

const MAPPING = parseCrmMapping(
  JSON.stringify({
    version: 1,
    events: {
      Order__c: {
        category: "fact",
        content: "Order {Order_Number__c} shipped to {Account__r.Name}",
        tags: ["orders", "{Region__c}"],
      },
      Partner__c: {
        category: "relationship",
        content: "{Name} partners with us",
        fields: { subject: "{Name}", predicate: "partners_with", object: "us" },
      },
      Escalation__c: {
        category: "exception",
        content: "Escalation {Name}",
        fields: { severity: "critical" },
      },
      Quote__c: {
        category: "decision",
        content: "Quote {Name}",
        fields: { amount: "{Total__c}", stage: "quoted" },
      },
    },
  }),
  "test-mapping.json",
);

describe("crm verification", () => {
  const xml = outbound([{ id: "04l1", type: "Task", fields: { Id: "00T1", Subject: "Call" } }]);

  test("X-Crm-Signature: base64 HMAC-SHA256 of the raw body", () => {
    expect(verifySync(source, signed(xml), ctx)).toEqual({ ok: true });
  });

  test("a wrong key, a changed body or a missing header is refused", () => {
    expect(verifySync(source, signed(xml, "other-secret"), ctx)).toEqual({
      ok: false,
      reason: "bad_signature",
    });
    const req = signed(xml);
    expect(verifySync(source, { ...req, rawBody: new TextEncoder().encode(`${xml} `) }, ctx)).toEqual({
      ok: false,
      reason: "bad_signature",
    });
    expect(verifySync(source, request(xml), ctx)).toEqual({ ok: false, reason: "missing_signature" });
  });
});

describe("crm parsing", () => {
  test("notifications become events keyed by notification Id, typed by xsi:type", () => {
    const xml = outbound([
      {
        id: "04l0001",
        type: "Opportunity",
        fields: { Id: "0065e01", Name: "Big & bold <deal>", StageName: "Prospecting", Description: null },
      },
      {
        id: "04l0002",
        type: "Case",
        fields: { Id: "5005e01", Subject: { raw: "<![CDATA[Login & SSO <broken>]]>" }, Status: "New" },
      },
      {
        id: "04l0003",
        type: "Contact",
        fields: {
          Id: "0035e01",
          LastName: { raw: "Caf&#233; &#x41;" },
          Account: { raw: "<sf:Name>Acme</sf:Name>" },
        },
      },
    ]);
    const events = source.parse(signed(xml), ctx);
    expect(events.map((e) => [e.event_id, e.event_type])).toEqual([
      ["04l0001", "Opportunity"],
      ["04l0002", "Case"],
      ["04l0003", "Contact"],
    ]);
    expect(events[0]!.payload).toMatchObject({
      object_type: "Opportunity",
      organization_id: ORG,
      fields: { Id: "0065e01", Name: "Big & bold <deal>", StageName: "Prospecting", Description: null },
    });
    expect(events[1]!.payload).toMatchObject({ fields: { Subject: "Login & SSO <broken>" } });
    expect(events[2]!.payload).toMatchObject({ fields: { LastName: "Café A", Account: { Name: "Acme" } } });
  });

  test("CRM_ORG_ID must match the OrganizationId on its first 15 characters", () => {
    const xml = outbound([{ id: "04l1", type: "Task", fields: { Id: "00T1" } }], ORG.slice(0, 15));
    expect(source.parse(signed(xml), context({ CRM_WEBHOOK_SECRET: SECRET, CRM_ORG_ID: ORG }))).toHaveLength(
      1,
    );
    const other = context({ CRM_WEBHOOK_SECRET: SECRET, CRM_ORG_ID: "00D5e000000ZZZZEAK" });
    expect(() => source.parse(signed(xml), other)).toThrow(Unauthorized);
    const noOrg = signed(xml.replace(/<OrganizationId>.*<\/OrganizationId>/, ""));
    expect(() => source.parse(noOrg, context({ CRM_WEBHOOK_SECRET: SECRET, CRM_ORG_ID: ORG }))).toThrow(
      Unauthorized,
    );
  });

  test("1..100 notifications", () => {
    const notes = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ id: `04l${i}`, type: "Task", fields: { Id: `00T${i}` } }));
    expect(source.parse(signed(outbound(notes(100))), ctx)).toHaveLength(100);
    expect(() => source.parse(signed(outbound(notes(101))), ctx)).toThrow(/more than 100/);
    expect(() => source.parse(signed(outbound([])), ctx)).toThrow(/no Notification/);
    expect(() => source.parse(signed(outbound([{ id: "", type: "Task", fields: {} }])), ctx)).toThrow(
      BadRequest,
    );
  });

  test("DTDs are refused: no entity expansion, no external entities", () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>${outbound(
      [{ id: "04l1", type: "Task", fields: { Subject: { raw: "&lol2;" } } }],
    ).replace(/^<\?xml[^>]*>/, "")}`;
    expect(() => source.parse(signed(bomb), ctx)).toThrow(/DTD/);
    const xxe = `<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><foo>&xxe;</foo>`;
    expect(() => source.parse(signed(xxe), ctx)).toThrow(BadRequest);
    // An undeclared entity is left as written, never resolved.
    const events = source.parse(
      signed(outbound([{ id: "04l1", type: "Task", fields: { Subject: { raw: "&xxe;" } } }])),
      ctx,
    );
    expect(events[0]!.payload).toMatchObject({ fields: { Subject: "&xxe;" } });
  });

  test("non-SOAP and non-XML bodies are bad requests", () => {
    for (const body of [
      "",
      "hello",
      '{"a":1}',
      "<a><b></a>",
      "<a>1</a>",
      "<Envelope><Body><other/></Body></Envelope>",
      "<__proto__><x/></__proto__>",
    ]) {
      expect(() => source.parse(signed(body), ctx)).toThrow(BadRequest);
    }
  });
});

describe("crm mapping of standard objects", () => {
  test("Opportunity → decision with its stage", () => {
    const { draft, object_key, lifecycle } = onlyDraft(
      source.map(
        parseOne("Opportunity", {
          Id: "0065e01",
          Name: "Acme renewal",
          StageName: "Negotiation/Review",
          Amount: "5000",
          LastModifiedDate: "2026-11-20T08:00:00.000Z",
        }),
        ctx,
      ),
    );
    expect(draft).toMatchObject({
      category: "decision",
      stage: "Negotiation/Review",
      content: "Opportunity Acme renewal moved to stage Negotiation/Review.",
      valid_from: "2026-11-20T08:00:00.000Z",
    });
    expect("amount" in draft).toBe(false);
    expect(object_key).toBe("crm:Opportunity:0065e01");
    expect(lifecycle).toBe("state");
  });

  test("Closed Won → decision closed_won with amount and close date; Closed Lost → decision closed_lost", () => {
    const won = onlyDraft(
      source.map(
        parseOne("Opportunity", {
          Id: "0065e01",
          Name: "Acme renewal",
          StageName: "Closed Won",
          Amount: "125000.50",
          CurrencyIsoCode: "EUR",
          CloseDate: "2026-11-30",
          IsWon: "true",
          IsClosed: "true",
        }),
        ctx,
      ),
    );
    expect(won.draft).toMatchObject({
      category: "decision",
      stage: "closed_won",
      amount: 125000.5,
      currency: "EUR",
    });
    expect(won.draft.content).toBe(
      "Opportunity Acme renewal was closed won for 125000.5 EUR (close date 2026-11-30).",
    );
    expect(won.draft.source).toEqual({
      system: "crm",
      event_id: "04l5e000000N0001",
      event_type: "Opportunity",
    });
    const lost = onlyDraft(
      source.map(
        parseOne("Opportunity", { Id: "0065e02", Name: "Globex", StageName: "Closed Lost", Amount: "9000" }),
        ctx,
      ),
    );
    expect(lost.draft).toMatchObject({
      category: "decision",
      stage: "closed_lost",
      content: "Opportunity Globex was closed lost.",
    });
    expect(source.map(parseOne("Opportunity", { Id: "0065e03" }), ctx)).toMatchObject({
      ok: false,
      reason: "missing_field",
      detail: "StageName",
    });
  });

  test("Case → open exception; a closed case resolves it under the same object key", () => {
    const open = onlyDraft(
      source.map(
        parseOne("Case", {
          Id: "5005e01",
          CaseNumber: "00001026",
          Subject: "Login fails",
          Status: "New",
          Priority: "High",
        }),
        ctx,
      ),
    );
    expect(open.draft).toMatchObject({
      category: "exception",
      status: "open",
      severity: "high",
      content: "Case 00001026 was opened: Login fails (priority High, status New).",
    });
    const closed = onlyDraft(
      source.map(
        parseOne("Case", {
          Id: "5005e01",
          CaseNumber: "00001026",
          Subject: "Login fails",
          Status: "Closed",
          IsClosed: "true",
        }),
        ctx,
      ),
    );
    expect(closed.draft).toMatchObject({ category: "exception", status: "resolved" });
    expect(open.object_key).toBe("crm:Case:5005e01");
    expect(closed.object_key).toBe("crm:Case:5005e01");
    expect(closed.lifecycle).toBe("close");
  });

  test("Contact and Account → relationship", () => {
    const contact = onlyDraft(
      source.map(
        parseOne("Contact", {
          Id: "0035e01",
          FirstName: "Ada",
          LastName: "Lovelace",
          Email: "ada@example.com",
          Account: { raw: "<sf:Name>Acme</sf:Name>" },
        }),
        ctx,
      ),
    );
    expect(contact.draft).toMatchObject({
      category: "relationship",
      subject: "Ada Lovelace",
      predicate: "works_at",
      object: "Acme",
      content: "Ada Lovelace works at Acme (ada@example.com).",
    });
    const account = onlyDraft(
      source.map(
        parseOne("Account", { Id: "0015e01", Name: "Acme", Type: "Customer - Direct", Industry: "Energy" }),
        ctx,
      ),
    );
    expect(account.draft).toMatchObject({
      category: "relationship",
      subject: "Acme",
      predicate: "is_account",
      object: "Customer - Direct",
    });
  });

  test("Task → fact", () => {
    const { draft } = onlyDraft(
      source.map(
        parseOne("Task", {
          Id: "00T5e01",
          Subject: "Call back",
          Status: "Completed",
          ActivityDate: "2026-11-22",
        }),
        ctx,
      ),
    );
    expect(draft).toMatchObject({
      category: "fact",
      content: "Task Call back (status Completed, due 2026-11-22).",
    });
  });
});

describe("crm custom mapping", () => {
  const withMapping = context({ CRM_WEBHOOK_SECRET: SECRET }, { crmMapping: MAPPING });

  test("placeholders are filled from the event's fields", () => {
    const ev = parseOne(
      "Order__c",
      {
        Id: "a015e01",
        Order_Number__c: "SO-1009",
        Region__c: "EMEA",
        Account__r: { raw: "<sf:Name>Acme</sf:Name>" },
      },
      withMapping,
    );
    const { draft } = onlyDraft(source.map(ev, withMapping));
    expect(draft).toMatchObject({
      category: "fact",
      content: "Order SO-1009 shipped to Acme",
      tags: ["crm", "order__c", "orders", "EMEA"],
    });
  });

  test("typed fields come from the rule (relationship, severity, a numeric amount)", () => {
    const partner = onlyDraft(
      source.map(parseOne("Partner__c", { Id: "a025e01", Name: "Initech" }, withMapping), withMapping),
    );
    expect(partner.draft).toMatchObject({
      category: "relationship",
      subject: "Initech",
      predicate: "partners_with",
      object: "us",
    });
    const escalation = onlyDraft(
      source.map(parseOne("Escalation__c", { Id: "a035e01", Name: "E-7" }, withMapping), withMapping),
    );
    expect(escalation.draft).toMatchObject({ category: "exception", severity: "critical" });
    const quote = onlyDraft(
      source.map(
        parseOne("Quote__c", { Id: "a045e01", Name: "Q-1", Total__c: "990.5" }, withMapping),
        withMapping,
      ),
    );
    expect(quote.draft).toMatchObject({ category: "decision", amount: 990.5, stage: "quoted" });
  });

  test("a missing field or an output that does not validate is a clean failure", () => {
    const missing = source.map(
      parseOne("Order__c", { Id: "a015e02", Region__c: "EMEA" }, withMapping),
      withMapping,
    );
    expect(missing).toEqual({ ok: false, reason: "missing_field", detail: "Order_Number__c" });
    const nilField = source.map(
      parseOne("Order__c", { Id: "a015e02", Order_Number__c: null, Region__c: "EMEA" }, withMapping),
      withMapping,
    );
    expect(nilField).toMatchObject({ ok: false, reason: "missing_field" });
    const badAmount = source.map(
      parseOne("Quote__c", { Id: "a045e02", Name: "Q-2", Total__c: "lots" }, withMapping),
      withMapping,
    );
    expect(badAmount).toMatchObject({ ok: false, reason: "invalid_mapping_output" });
  });

  test("a type neither standard nor mapped is unmapped_event", () => {
    expect(source.map(parseOne("Invoice__c", { Id: "a9" }, withMapping), withMapping)).toEqual({
      ok: false,
      reason: "unmapped_event",
      detail: "Invoice__c",
    });
    expect(source.map(parseOne("Order__c", { Id: "a9" }), ctx)).toMatchObject({
      ok: false,
      reason: "unmapped_event",
    });
    // Inherited names are not rules.
    expect(source.map(parseOne("toString", { Id: "a9" }, withMapping), withMapping)).toMatchObject({
      ok: false,
      reason: "unmapped_event",
    });
  });
});

describe("crm acknowledgement", () => {
  test("respond() answers the SOAP ack with the summary in a header", () => {
    const summary = {
      accepted: 2,
      entries: ["0a1b2c3d", "deadbeef"],
      duplicates: 0,
      dead_lettered: ["04l–é"],
    };
    const res = source.respond!(summary);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/xml");
    expect(res.body).toBe(
      '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><notificationsResponse xmlns="http://soap.sforce.com/2005/09/outbound"><Ack>true</Ack></notificationsResponse></soapenv:Body></soapenv:Envelope>',
    );
    const header = res.headers["x-memory-summary"]!;
    expect(/^[\x20-\x7e]*$/.test(header)).toBe(true);
    expect(JSON.parse(header)).toEqual(summary);
    expect(() => new Headers(res.headers)).not.toThrow();
  });
});

describe("crm change events (streaming)", () => {
  const withMapping = context({}, { crmMapping: MAPPING });

  test("a closed case in a change event resolves each record", () => {
    const ev = changeEventOf(
      {
        ChangeEventHeader: {
          entityName: "Case",
          changeType: "UPDATE",
          recordIds: ["5005e01", "5005e02"],
          commitTimestamp: 1795000000000,
        },
        Status: "Closed",
      },
      "replay-1001",
    )!;
    const drafts = validDrafts(mapCrmChangeEvent(ev, ctx));
    expect(
      drafts.map((d) => [d.object_key, d.draft.category, (d.draft as { status?: string }).status]),
    ).toEqual([
      ["crm:Case:5005e01", "exception", "resolved"],
      ["crm:Case:5005e02", "exception", "resolved"],
    ]);
    expect(drafts[0]!.draft).toMatchObject({
      valid_from: new Date(1795000000000).toISOString(),
      source: { system: "crm", event_id: "replay-1001", event_type: "Case.UPDATE" },
    });
  });

  test("a created contact with a compound name → relationship", () => {
    const ev = changeEventOf({
      ChangeEventHeader: { entityName: "Contact", changeType: "CREATE", recordIds: ["0035e09"] },
      Name: { FirstName: "Grace", LastName: "Hopper" },
      Email: "grace@example.com",
    })!;
    const drafts = validDrafts(mapCrmChangeEvent(ev, ctx));
    expect(drafts[0]!.draft).toMatchObject({
      category: "relationship",
      subject: "Grace Hopper",
      predicate: "is_contact",
    });
    expect(drafts[0]!.draft.source?.event_id).toBe("Contact:CREATE:0035e09:");
  });

  test("won opportunities and custom entities map as outbound messages do", () => {
    const won = changeEventOf({
      ChangeEventHeader: { entityName: "Opportunity", changeType: "UPDATE", recordIds: ["0065e01"] },
      StageName: "Closed Won",
      Amount: 4200,
    })!;
    expect(validDrafts(mapCrmChangeEvent(won, ctx))[0]!.draft).toMatchObject({
      category: "decision",
      stage: "closed_won",
      amount: 4200,
    });
    const order = changeEventOf({
      ChangeEventHeader: { entityName: "Order__c", changeType: "CREATE", recordIds: ["a01"] },
      Order_Number__c: "SO-1",
      Region__c: "APAC",
      Account__r: { Name: "Acme" },
    })!;
    expect(validDrafts(mapCrmChangeEvent(order, withMapping))[0]!.draft).toMatchObject({
      content: "Order SO-1 shipped to Acme",
    });
  });

  test("updates that touch nothing mapped, deletes and gaps give no drafts; unknown entities are unmapped", () => {
    const amountOnly = changeEventOf({
      ChangeEventHeader: { entityName: "Opportunity", changeType: "UPDATE", recordIds: ["0065e01"] },
      Amount: 1,
    })!;
    expect(mapCrmChangeEvent(amountOnly, ctx)).toEqual({ ok: true, drafts: [] });
    const deleted = changeEventOf({
      ChangeEventHeader: { entityName: "Case", changeType: "DELETE", recordIds: ["5005e01"] },
    })!;
    expect(mapCrmChangeEvent(deleted, ctx)).toEqual({ ok: true, drafts: [], ignored: true });
    const unknown = changeEventOf({
      ChangeEventHeader: { entityName: "Lead", changeType: "CREATE", recordIds: ["00Q1"] },
      LastName: "X",
    })!;
    expect(mapCrmChangeEvent(unknown, ctx)).toMatchObject({
      ok: false,
      reason: "unmapped_event",
      detail: "Lead",
    });
    expect(changeEventOf({ no: "header" })).toBeUndefined();
    expect(changeEventOf("junk")).toBeUndefined();
  });
});
