/**
 * Hostile bodies against every source: each (source, body) pair has one determined outcome — parse
 * throws a BadRequest (most), an Unauthorized (a body carrying auth facts that do not match), or
 * yields events whose mapping is `ignored` or fails with a named reason. No error message quotes the
 * body or a secret.
 */
import { describe, expect, test } from "bun:test";
import { BadRequest, Unauthorized } from "../../src/errors/domain-errors.ts";
import { SOURCES } from "../../src/sources/registry.ts";
import type { MapResult, SourceContext, SourceModule } from "../../src/sources/types.ts";
import { context, hostileBodies, request } from "./support.ts";

const SECRETS = {
  MARKETING_CRM_CLIENT_SECRET: "mc-secret-value",
  MARKETING_CRM_APP_ID: "54321",
  DATA_WEBHOOK_TOKEN: "data-secret-token",
  MAIL_PUBSUB_AUDIENCE: "aud",
  MAIL_WATCH_EMAIL: "ops@example.com",
  CRM_WEBHOOK_SECRET: "crm-secret-value",
  CRM_ORG_ID: "00D5e000000AbCdEAK",
};
const ctx = context(SECRETS);
const bodies = hostileBodies();

/** What a map result is, in one word: `ignored`, `drafts`, or the failure's reason. */
function mapOutcome(result: MapResult): string {
  if (!result.ok) return result.reason;
  return result.ignored ? "ignored" : "drafts";
}

/** What parsing then mapping a body comes to; throws whatever else escapes. */
function outcomeOf(source: SourceModule, body: Uint8Array, context: SourceContext): string {
  try {
    const outcomes = new Set(
      source.parse(request(body), context).map((e) => mapOutcome(source.map(e, context))),
    );
    return [...outcomes].join("+") || "no_events";
  } catch (err) {
    if (!(err instanceof BadRequest) && !(err instanceof Unauthorized)) throw err;
    const message = (err as Error).message;
    expect(message.length).toBeLessThan(200);
    for (const secret of Object.values(SECRETS)) expect(message).not.toContain(secret);
    return err instanceof BadRequest ? "bad_request" : "unauthorized";
  }
}

/**
 * Every body is a `bad_request` except these. Wrong-shaped JSON parses and names an event type the
 * source's table does not cover (ignored); telephony reads any text as a form (so only bodies that
 * are not UTF-8 text, or empty, are refused); calendar notifications are carried in headers, so any
 * body that is empty or JSON is ignored.
 */
const NOT_BAD_REQUEST: Record<string, Record<string, string>> = {
  data: { wrongTypes: "unmapped_event", objectWrongTypes: "unmapped_event" },
  marketing_crm: { wrongTypes: "unauthorized" },
  storefront: { objectWrongTypes: "ignored" },
  warehouse: { wrongTypes: "ignored" },
  telephony: Object.fromEntries(
    Object.keys(bodies)
      .filter((name) => !["empty", "whitespace", "binary", "invalidUtf8"].includes(name))
      .map((name) => [name, "ignored"]),
  ),
  calendar: Object.fromEntries(
    [
      "empty",
      "whitespace",
      "jsonNull",
      "jsonNumber",
      "jsonString",
      "twoMiB",
      "wrongTypes",
      "objectWrongTypes",
    ].map((name) => [name, "ignored"]),
  ),
};
for (const id of [
  "payments",
  "code_host",
  "helpdesk",
  "issue_tracker",
  "project_tracker",
  "support_chat",
  "meetings",
  "scheduling",
  "forms",
  "esign",
  "analytics",
  "standard",
])
  NOT_BAD_REQUEST[id] = { wrongTypes: "ignored", objectWrongTypes: "ignored" };

describe.each([...SOURCES.keys()])("%s under hostile bodies", (id) => {
  const source = SOURCES.get(id)!;

  test.each(Object.keys(bodies))("%s", (name) => {
    const expected = NOT_BAD_REQUEST[id]?.[name] ?? "bad_request";
    expect(outcomeOf(source, bodies[name]!, ctx)).toBe(expected);
  });

  test("verification of a hostile body without credentials fails cleanly", async () => {
    for (const body of Object.values(bodies))
      expect((await source.verify(request(body), ctx)).ok).toBe(false);
  });
});

describe("map of hostile stored payloads (dead-letter replays)", () => {
  const payloads: unknown[] = [
    null,
    42,
    "x",
    [],
    {},
    { fields: 5 },
    { subscriptionType: "deal.propertyChange", propertyName: "dealstage", propertyValue: {} },
  ];
  /** A stored event of a type no table covers is ignored, except by the sources that check more first. */
  const MAP_OUTCOMES: Record<string, string[]> = {
    crm: Array(payloads.length).fill("invalid_payload"),
    mail: Array(payloads.length).fill("mailbox_mismatch"),
    data: Array(payloads.length).fill("unmapped_event"),
    marketing_crm: [
      "invalid_payload",
      "invalid_payload",
      "invalid_payload",
      "invalid_payload",
      "unmapped_event",
      "unmapped_event",
      "missing_field",
    ],
  };
  test.each([...SOURCES.keys()])("%s", (id) => {
    const source = SOURCES.get(id)!;
    const outcomes = payloads.map((payload) =>
      mapOutcome(source.map({ event_id: "e", event_type: "t", payload }, ctx)),
    );
    expect(outcomes).toEqual(MAP_OUTCOMES[id] ?? Array(payloads.length).fill("ignored"));
  });
});
