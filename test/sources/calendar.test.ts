import { expect, test } from "bun:test";
import {
  CALENDAR_TOKEN,
  CHANNEL_ID,
  calendarEvent,
  calendarSender,
  googleNotification,
  RESOURCE_URI,
} from "../fakes/senders/calendar.ts";
import { expectProblem } from "../helpers/problem.ts";
import { deadLetters, readEntry } from "../helpers/webhooks.ts";
import { describeSource } from "./conformance.ts";

const NOTHING = { accepted: 0, entries: [], duplicates: 0, dead_lettered: [], ignored: 0 };

describeSource({
  sender: calendarSender,
  mapped: [
    {
      name: "events changed (no body, as Google sends it)",
      body: () => googleNotification({ state: "exists" }),
      eventType: "exists",
      category: "workflow",
      content: `Events changed in calendar ops@example.com: notification`,
      fields: {
        tags: ["calendar", "changed"],
        data: { channel_id: CHANNEL_ID, resource_uri: RESOURCE_URI, calendar: "ops@example.com" },
      },
    },
    {
      name: "event created (Events resource in the body)",
      body: () => googleNotification({ state: "exists", event: calendarEvent() }),
      eventType: "exists",
      category: "workflow",
      content:
        'Calendar event "Quarterly review" 2026-11-24T10:00:00+01:00 to 2026-11-24T11:00:00+01:00 was created in calendar ops@example.com (confirmed), organised by ops@example.com, with ada@example.com. https://www.google.com/calendar/event?eid=',
      fields: {
        tags: ["calendar", "event_created"],
        valid_from: "2026-11-21T09:00:00.412Z",
        data: { event_id: "4eahs9ghkhrvkld72hogu9ph3e", attendees: 2, organizer: "ops@example.com" },
      },
    },
    {
      name: "event updated",
      body: () =>
        googleNotification({
          state: "exists",
          event: calendarEvent({ status: "tentative", updated: "2026-11-21T11:30:00.000Z" }),
        }),
      eventType: "exists",
      category: "workflow",
      content:
        'Calendar event "Quarterly review" 2026-11-24T10:00:00+01:00 to 2026-11-24T11:00:00+01:00 was updated',
      fields: { tags: ["calendar", "event_updated"] },
    },
    {
      name: "event cancelled",
      body: () =>
        googleNotification({
          state: "exists",
          event: calendarEvent({ status: "cancelled", updated: "2026-11-22T08:00:00.000Z" }),
        }),
      eventType: "cancelled",
      category: "exception",
      content:
        'Calendar event "Quarterly review" 2026-11-24T10:00:00+01:00 to 2026-11-24T11:00:00+01:00 was cancelled',
      // The calendar event's end: nothing is left open about it (docs/source-mappings.md, "Lifecycles").
      fields: { severity: "medium", status: "resolved", tags: ["calendar", "event_cancelled"] },
    },
    {
      name: "watched resource gone (not_exists)",
      body: () => googleNotification({ state: "not_exists" }),
      eventType: "not_exists",
      category: "exception",
      content: `${RESOURCE_URI} no longer exists: channel ${CHANNEL_ID} sends nothing more about it.`,
      fields: { severity: "high", status: "open" },
    },
  ],
  // Google's push channels are shared with Drive, whose states (`update`, `trash`, …) this table
  // does not cover.
  lifecycles: [
    {
      name: "event cancelled",
      before: [
        {
          body: () => googleNotification({ state: "exists", event: calendarEvent() }),
          category: "workflow",
          closed: "ended",
        },
      ],
      closing: {
        body: () =>
          googleNotification({
            state: "exists",
            event: calendarEvent({ status: "cancelled", updated: "2026-11-22T08:00:00.000Z" }),
          }),
        category: "exception",
      },
    },
  ],
  unmapped: () => googleNotification({ state: "update" }),
  more: ({ tenant, deliver, post, harness, clock, url }) => {
    const entryCount = async (tenantId: string): Promise<number> =>
      (await harness().json("GET", `/tenants/${tenantId}/healthz`, { token: harness().adminToken })).body
        .vault.entries;
    const sign = (description: string, tenantId: string) =>
      calendarSender.sign(description, { now: clock.now(), url: url(tenantId) });

    test("the sync message that opens a channel is answered 200 with nothing written", async () => {
      const t = await tenant();
      const res = await post(
        t.tenant_id,
        await sign(googleNotification({ state: "sync", messageNumber: 1 }), t.tenant_id),
      );
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(NOTHING);
      expect(await entryCount(t.tenant_id)).toBe(0);
    });

    test("a sync message with another channel's token → 401", async () => {
      const t = await tenant();
      const signed = await sign(googleNotification({ state: "sync", messageNumber: 1 }), t.tenant_id);
      const forged = {
        ...signed,
        headers: { ...signed.headers, "x-goog-channel-token": `${CALENDAR_TOKEN}x` },
      };
      await expectProblem(await post(t.tenant_id, forged), 401, "unauthorized");
    });

    test("the event id is the channel id and the message number", async () => {
      const t = await tenant();
      const summary = await deliver(
        t.tenant_id,
        googleNotification({ state: "exists", messageNumber: 4242 }),
      );
      const entry = await readEntry(harness(), t.token, "workflow", summary.entries[0]!);
      expect(entry.source.event_id).toBe(`${CHANNEL_ID}:4242`);
      // The next message of the channel is a new event, the same number again a duplicate.
      expect(
        (await deliver(t.tenant_id, googleNotification({ state: "exists", messageNumber: 4243 }))).accepted,
      ).toBe(1);
      expect(
        (await deliver(t.tenant_id, googleNotification({ state: "exists", messageNumber: 4242 }))).duplicates,
      ).toBe(1);
    });

    test("a change naming no resource is dead-lettered as missing_field", async () => {
      const t = await tenant();
      const summary = await deliver(
        t.tenant_id,
        googleNotification({ state: "exists", messageNumber: 77, noResource: true }),
      );
      expect(summary).toMatchObject({ accepted: 0, entries: [], dead_lettered: [`${CHANNEL_ID}:77`] });
      const [dead] = await deadLetters(harness(), t.tenant_id);
      // The event keeps X-Goog-Resource-URI / -ID as resource_uri / resource_id: either names it.
      expect(dead!.last_error).toBe("missing_field: resource_uri or resource_id");
      expect(dead!.payload).not.toHaveProperty("token");
      expect(JSON.stringify(dead)).not.toContain(CALENDAR_TOKEN);
    });

    test("a JSON body that is not an Events resource is not taken for one", async () => {
      const t = await tenant();
      const signed = await sign(googleNotification({ state: "exists" }), t.tenant_id);
      const res = await post(t.tenant_id, {
        ...signed,
        headers: { ...signed.headers, "content-type": "application/json" },
        body: "[1, 2]",
      });
      expect(res.status).toBe(200);
      const summary = (await res.json()) as { entries: string[] };
      const entry = await readEntry(harness(), t.token, "workflow", summary.entries[0]!);
      expect(entry.content).toStartWith("Events changed in calendar ops@example.com");
    });
  },
});
