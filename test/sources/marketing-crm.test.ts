import { describe, expect, test } from "bun:test";
import { createHash, createHmac } from "node:crypto";
import { BadRequest, Unauthorized } from "../../src/errors/domain-errors.ts";
import { marketingCrmSource as source } from "../../src/sources/marketing-crm.ts";
import type { SourceEvent } from "../../src/sources/types.ts";
import { context, NOW, onlyDraft, request, TENANT, verifySync } from "./support.ts";

const SECRET = "yyyyyyyy-yyyy-yyyy-yyyy-yyyyyyyyyyyy";
const APP_ID = "54321";
const ctx = context({ MARKETING_CRM_CLIENT_SECRET: SECRET, MARKETING_CRM_APP_ID: APP_ID });
const VECTOR_BODY =
  '[{"eventId":1,"subscriptionId":12345,"portalId":62515,"occurredAt":1564113600000,"subscriptionType":"contact.creation","attemptNumber":0,"objectId":123,"changeSource":"CRM","changeFlag":"NEW","appId":54321}]';
const PUBLIC_URL = `https://memory.example.com/webhooks/marketing_crm/${TENANT}?portal=62515`;

function v3(method: string, uri: string, body: string, timestamp: number, secret = SECRET): string {
  return createHmac("sha256", secret).update(`${method}${uri}${body}${timestamp}`).digest("base64");
}

function event(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    eventId: 7,
    subscriptionId: 1,
    portalId: 62515,
    appId: 54321,
    occurredAt: NOW - 1000,
    attemptNumber: 0,
    objectId: 901,
    ...fields,
  };
}

function parsed(events: Record<string, unknown>[]): SourceEvent[] {
  return source.parse(request(JSON.stringify(events)), ctx);
}

describe("marketing_crm verification", () => {
  test("v1: the SOURCES.md test vector", () => {
    const hex = createHash("sha256")
      .update(SECRET + VECTOR_BODY)
      .digest("hex");
    expect(hex).toBe("232db2615f3d666fe21a8ec971ac7b5402d33b9a925784df3ca654d05f4817de");
    expect(verifySync(source, request(VECTOR_BODY, { "X-MarketingCrm-Signature": hex }), ctx)).toEqual({
      ok: true,
    });
    // The platform's own header name is accepted too, and hex case does not matter.
    expect(
      verifySync(source, request(VECTOR_BODY, { "X-HubSpot-Signature": hex.toUpperCase() }), ctx),
    ).toEqual({ ok: true });
  });

  test("v1: a wrong or missing signature, or another secret, is refused", () => {
    const bad = "232db2615f3d666fe21a8ec971ac7b5402d33b9a925784df3ca654d05f4817df";
    expect(verifySync(source, request(VECTOR_BODY, { "X-MarketingCrm-Signature": bad }), ctx)).toEqual({
      ok: false,
      reason: "bad_signature",
    });
    expect(verifySync(source, request(VECTOR_BODY), ctx)).toEqual({ ok: false, reason: "missing_signature" });
    const other = context({ MARKETING_CRM_CLIENT_SECRET: "another", MARKETING_CRM_APP_ID: APP_ID });
    const hex = createHash("sha256")
      .update(SECRET + VECTOR_BODY)
      .digest("hex");
    expect(verifySync(source, request(VECTOR_BODY, { "X-MarketingCrm-Signature": hex }), other).ok).toBe(
      false,
    );
    // One changed byte of the body breaks it.
    expect(verifySync(source, request(`${VECTOR_BODY} `, { "X-MarketingCrm-Signature": hex }), ctx).ok).toBe(
      false,
    );
  });

  test("v3: HMAC over method, full URI, body and timestamp", () => {
    const ts = NOW - 60_000;
    const headers = {
      "X-MarketingCrm-Signature-V3": v3("POST", PUBLIC_URL, VECTOR_BODY, ts),
      "X-MarketingCrm-Request-Timestamp": String(ts),
    };
    expect(verifySync(source, request(VECTOR_BODY, headers, PUBLIC_URL), ctx)).toEqual({ ok: true });
    // v3 takes precedence: a wrong v1 header beside it does not matter, a wrong method does.
    expect(
      verifySync(
        source,
        request(VECTOR_BODY, { ...headers, "X-MarketingCrm-Signature": "00" }, PUBLIC_URL),
        ctx,
      ),
    ).toEqual({ ok: true });
    expect(verifySync(source, request(VECTOR_BODY, headers, PUBLIC_URL, "PUT"), ctx).ok).toBe(false);
    expect(verifySync(source, request(VECTOR_BODY, headers, PUBLIC_URL.replace("62515", "1")), ctx).ok).toBe(
      false,
    );
  });

  test("v3: timestamps older than 5 minutes (or as far ahead) are refused", () => {
    for (const ts of [NOW - 5 * 60_000 - 1, NOW + 5 * 60_000 + 1, 0]) {
      const headers = {
        "X-MarketingCrm-Signature-V3": v3("POST", PUBLIC_URL, VECTOR_BODY, ts),
        "X-MarketingCrm-Request-Timestamp": String(ts),
      };
      expect(verifySync(source, request(VECTOR_BODY, headers, PUBLIC_URL), ctx)).toEqual({
        ok: false,
        reason: "stale_timestamp",
      });
    }
    const ts = NOW - 5 * 60_000;
    const edge = {
      "X-MarketingCrm-Signature-V3": v3("POST", PUBLIC_URL, VECTOR_BODY, ts),
      "X-MarketingCrm-Request-Timestamp": String(ts),
    };
    expect(verifySync(source, request(VECTOR_BODY, edge, PUBLIC_URL), ctx)).toEqual({ ok: true });
    const noStamp = { "X-MarketingCrm-Signature-V3": v3("POST", PUBLIC_URL, VECTOR_BODY, NOW) };
    expect(verifySync(source, request(VECTOR_BODY, noStamp, PUBLIC_URL), ctx)).toEqual({
      ok: false,
      reason: "missing_timestamp",
    });
    const junk = { ...noStamp, "X-MarketingCrm-Request-Timestamp": "soon" };
    expect(verifySync(source, request(VECTOR_BODY, junk, PUBLIC_URL), ctx)).toEqual({
      ok: false,
      reason: "bad_timestamp",
    });
  });

  test("v3: X-Forwarded-Proto and -Host give the URI the sender called", () => {
    const internal = `http://127.0.0.1:8080/webhooks/marketing_crm/${TENANT}?portal=62515`;
    const ts = NOW;
    const signed = {
      "X-HubSpot-Signature-v3": v3("POST", PUBLIC_URL, VECTOR_BODY, ts),
      "X-HubSpot-Request-Timestamp": String(ts),
    };
    expect(verifySync(source, request(VECTOR_BODY, signed, internal), ctx).ok).toBe(false);
    const proxied = {
      ...signed,
      "X-Forwarded-Proto": "https",
      "X-Forwarded-Host": "memory.example.com, proxy.internal",
    };
    expect(verifySync(source, request(VECTOR_BODY, proxied, internal), ctx)).toEqual({ ok: true });
  });

  test("v3: the platform's decoded form of escaped URI characters is accepted", () => {
    const raw = `https://memory.example.com/webhooks/marketing_crm/${TENANT}?next=%2Fa%3Ab`;
    const decoded = `https://memory.example.com/webhooks/marketing_crm/${TENANT}?next=/a:b`;
    const headers = {
      "X-MarketingCrm-Signature-V3": v3("POST", decoded, VECTOR_BODY, NOW),
      "X-MarketingCrm-Request-Timestamp": String(NOW),
    };
    expect(verifySync(source, request(VECTOR_BODY, headers, raw), ctx)).toEqual({ ok: true });
  });
});

describe("marketing_crm parsing", () => {
  test("event ids are {subscriptionType}:{objectId}:{occurredAt}:{eventId}", () => {
    const events = source.parse(request(VECTOR_BODY), ctx);
    expect(events).toHaveLength(1);
    expect(events[0]!.event_id).toBe("contact.creation:123:1564113600000:1");
    expect(events[0]!.event_type).toBe("contact.creation");
  });

  test("an event for another app makes the whole delivery unauthorized", () => {
    const body = JSON.stringify([
      event({ subscriptionType: "contact.creation" }),
      event({ subscriptionType: "contact.creation", appId: 999 }),
    ]);
    expect(() => source.parse(request(body), ctx)).toThrow(Unauthorized);
    const noApp = JSON.stringify([{ ...event({ subscriptionType: "contact.creation" }), appId: undefined }]);
    expect(() => source.parse(request(noApp), ctx)).toThrow(Unauthorized);
    try {
      source.parse(request(body), ctx);
    } catch (err) {
      expect(String((err as Error).message)).not.toContain(APP_ID);
    }
  });

  test("more than 100 events, non-arrays and events without ids are bad requests", () => {
    const many = Array.from({ length: 101 }, (_, i) =>
      event({ eventId: i, subscriptionType: "contact.creation" }),
    );
    expect(() => source.parse(request(JSON.stringify(many)), ctx)).toThrow(/at most 100/);
    expect(source.parse(request(JSON.stringify(many.slice(0, 100))), ctx)).toHaveLength(100);
    expect(() => source.parse(request(JSON.stringify(event({ subscriptionType: "x" }))), ctx)).toThrow(
      BadRequest,
    );
    expect(() =>
      source.parse(request(JSON.stringify([event({ subscriptionType: "x", objectId: undefined })])), ctx),
    ).toThrow(/objectId/);
    expect(() => source.parse(request("[1]"), ctx)).toThrow(BadRequest);
    expect(source.parse(request("[]"), ctx)).toEqual([]);
  });
});

describe("marketing_crm mapping", () => {
  test("contact.creation → relationship with name, email, company and source", () => {
    const [ev] = parsed([
      event({
        subscriptionType: "contact.creation",
        properties: {
          firstname: "Ada",
          lastname: { value: "Lovelace" },
          email: "ada@example.com",
          company: "Analytical Engines",
          source: "ORGANIC_SEARCH",
        },
      }),
    ]);
    const { draft, object_key } = onlyDraft(source.map(ev!, ctx));
    expect(draft).toMatchObject({
      category: "relationship",
      subject: "Ada Lovelace",
      predicate: "works_at",
      object: "Analytical Engines",
      valid_from: new Date(NOW - 1000).toISOString(),
      source: { system: "marketing_crm", event_id: ev!.event_id, event_type: "contact.creation" },
    });
    expect(draft.content).toBe(
      "Ada Lovelace works at Analytical Engines (email ada@example.com, source ORGANIC_SEARCH).",
    );
    expect(draft.data).toMatchObject({ email: "ada@example.com", source: "ORGANIC_SEARCH" });
    expect(object_key).toBe("marketing_crm:contact:901");
  });

  test("a contact without properties is still a readable relationship", () => {
    const { draft } = onlyDraft(source.map(source.parse(request(VECTOR_BODY), ctx)[0]!, ctx));
    expect(draft).toMatchObject({
      category: "relationship",
      subject: "contact 123",
      predicate: "is_contact_of",
      object: "marketing CRM portal 62515",
    });
  });

  test("company.creation → relationship", () => {
    const [ev] = parsed([
      event({
        subscriptionType: "company.creation",
        properties: { name: "Initech", domain: "initech.example" },
      }),
    ]);
    const { draft } = onlyDraft(source.map(ev!, ctx));
    expect(draft).toMatchObject({ category: "relationship", subject: "Initech", predicate: "is_company_of" });
    expect(draft.content).toContain("Initech (initech.example)");
  });

  test("dealstage closedwon → decision closed_won with amount, close date and contacts", () => {
    const [ev] = parsed([
      event({
        subscriptionType: "deal.propertyChange",
        propertyName: "dealstage",
        propertyValue: "closedwon",
        properties: {
          dealname: "Acme renewal",
          amount: "12500.50",
          deal_currency_code: "eur",
          closedate: "1795000000000",
          contacts: ["Ada Lovelace", "501"],
        },
      }),
    ]);
    const { draft, object_key, lifecycle } = onlyDraft(source.map(ev!, ctx));
    expect(draft).toMatchObject({
      category: "decision",
      stage: "closed_won",
      amount: 12500.5,
      currency: "EUR",
    });
    expect(draft.data).toMatchObject({
      close_date: new Date(1795000000000).toISOString(),
      contacts: ["Ada Lovelace", "501"],
    });
    expect(draft.content).toContain("Acme renewal was closed won for 12500.5 EUR");
    expect(object_key).toBe("marketing_crm:deal:901");
    expect(lifecycle).toBe("close");
  });

  test("dealstage closedlost → exception with the reason", () => {
    const [ev] = parsed([
      event({
        subscriptionType: "deal.propertyChange",
        propertyName: "dealstage",
        propertyValue: "closedlost",
        properties: { closed_lost_reason: "Budget cut" },
      }),
    ]);
    const { draft } = onlyDraft(source.map(ev!, ctx));
    expect(draft).toMatchObject({ category: "exception", severity: "medium", status: "open" });
    expect(draft.content).toBe("Deal 901 was closed lost: Budget cut.");
  });

  test("another dealstage → decision (stage progression)", () => {
    const [ev] = parsed([
      event({
        subscriptionType: "deal.propertyChange",
        propertyName: "dealstage",
        propertyValue: "presentationscheduled",
      }),
    ]);
    const { draft } = onlyDraft(source.map(ev!, ctx));
    expect(draft).toMatchObject({ category: "decision", stage: "presentationscheduled" });
    expect("amount" in draft).toBe(false);
  });

  test("timeline.creation → fact", () => {
    const [ev] = parsed([
      event({ subscriptionType: "timeline.creation", properties: { title: "Webinar attended" } }),
    ]);
    const { draft } = onlyDraft(source.map(ev!, ctx));
    expect(draft).toMatchObject({
      category: "fact",
      content: "Timeline event on object 901: Webinar attended",
    });
  });

  test("other types and other deal properties are unmapped_event; a dealstage without value is missing_field", () => {
    const [a, b, c] = parsed([
      event({ subscriptionType: "contact.deletion" }),
      event({ subscriptionType: "deal.propertyChange", propertyName: "amount", propertyValue: "5" }),
      event({ subscriptionType: "deal.propertyChange", propertyName: "dealstage" }),
    ]);
    expect(source.map(a!, ctx)).toMatchObject({ ok: false, reason: "unmapped_event" });
    expect(source.map(b!, ctx)).toMatchObject({ ok: false, reason: "unmapped_event" });
    expect(source.map(c!, ctx)).toMatchObject({
      ok: false,
      reason: "missing_field",
      detail: "propertyValue",
    });
    expect(source.map({ event_id: "x", event_type: "x", payload: "junk" }, ctx)).toMatchObject({ ok: false });
  });
});
