/**
 * Hostile bodies against every source: parse either throws a BadRequest (or, for bodies that
 * carry auth facts, an Unauthorized) or yields events whose mapping fails cleanly. Nothing else
 * may escape, and no error message quotes the body or a secret.
 */
import { describe, expect, test } from "bun:test";
import { AppError, BadRequest, Unauthorized } from "../../src/errors.ts";
import { SOURCES } from "../../src/sources/registry.ts";
import { context, hostileBodies, request, validDrafts } from "./support.ts";

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

describe.each([...SOURCES.keys()])("%s under hostile bodies", (id) => {
  const source = SOURCES.get(id)!;

  test.each(Object.keys(bodies))("%s", (name) => {
    let events: ReturnType<typeof source.parse> = [];
    try {
      events = source.parse(request(bodies[name]!), ctx);
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect(err instanceof BadRequest || err instanceof Unauthorized).toBe(true);
      const message = (err as Error).message;
      expect(message.length).toBeLessThan(200);
      for (const secret of Object.values(SECRETS)) expect(message).not.toContain(secret);
      return;
    }
    for (const event of events) {
      const result = source.map(event, ctx);
      if (result.ok) validDrafts(result);
      else expect(result.reason).toMatch(/^[a-z_]+$/);
    }
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
  test.each([...SOURCES.keys()])("%s", (id) => {
    const source = SOURCES.get(id)!;
    for (const payload of payloads) {
      const result = source.map({ event_id: "e", event_type: "t", payload }, ctx);
      if (result.ok) validDrafts(result);
      else expect(result.reason).toMatch(/^[a-z_]+$/);
    }
  });
});
