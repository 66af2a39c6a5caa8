import { expect, test } from "bun:test";
import { calendlyEvent, canceled, invitee, noShow, schedulingSender } from "../fakes/senders/scheduling.ts";
import { deadLetters, readEntry } from "../helpers/webhooks.ts";
import { describeSource } from "./conformance.ts";

const MEETING = '"Discovery Call" on 2026-11-24T15:00:00.000000Z';

/** The lifecycle samples' invitee: the same booking in every event. */
const booked = () => invitee({ uri: "https://api.calendly.com/scheduled_events/LIFE1/invitees/LIFE2" });

describeSource({
  sender: schedulingSender,
  mapped: [
    {
      name: "invitee created",
      body: () => calendlyEvent("invitee.created"),
      eventType: "invitee.created",
      category: "relationship",
      content: `Grace Hopper <grace@example.com> booked ${MEETING} with Ada Lovelace <ada@acme.example> until 2026-11-24T15:30:00.000000Z at https://us02web.zoom.us/j/81234567890.\n\nWhat would you like to discuss? Pricing for 40 seats`,
      fields: {
        subject: "Grace Hopper <grace@example.com>",
        predicate: "booked",
        object: MEETING,
        tags: ["scheduling", "booking", "invitee", "Discovery Call"],
        data: { host: "Ada Lovelace <ada@acme.example>", utm_source: "newsletter", status: "active" },
        valid_from: "2026-11-21T09:57:00.000Z",
      },
    },
    {
      name: "invitee canceled",
      body: () => calendlyEvent("invitee.canceled", canceled(invitee())),
      eventType: "invitee.canceled",
      category: "exception",
      content: `Grace Hopper <grace@example.com>'s booking of ${MEETING} with Ada Lovelace <ada@acme.example> was canceled by Grace Hopper (invitee): A conflicting board meeting.`,
      fields: {
        severity: "medium",
        // The booking's end: nothing is left open about it (docs/source-mappings.md, "Lifecycles").
        status: "resolved",
        data: { reason: "A conflicting board meeting", canceler_type: "invitee", status: "canceled" },
        valid_from: "2026-11-21T09:59:00.000Z",
      },
    },
    {
      name: "invitee no-show created",
      body: () => calendlyEvent("invitee_no_show.created", noShow(invitee())),
      eventType: "invitee_no_show.created",
      category: "exception",
      content: `Grace Hopper <grace@example.com> did not show up to ${MEETING} with Ada Lovelace <ada@acme.example>.`,
      fields: {
        severity: "medium",
        tags: ["scheduling", "booking", "no_show", "Discovery Call"],
        valid_from: "2026-11-24T15:20:00.000Z",
      },
    },
  ],
  lifecycles: [
    {
      name: "invitee canceled",
      before: [
        { body: () => calendlyEvent("invitee.created", booked()), category: "relationship", closed: "ended" },
      ],
      closing: { body: () => calendlyEvent("invitee.canceled", canceled(booked())), category: "exception" },
    },
  ],
  unmapped: () => calendlyEvent("invitee_no_show.deleted", noShow(invitee())),
  more: ({ tenant, deliver, post, harness, clock, url }) => {
    const entries = async (tenantId: string): Promise<number> =>
      (await harness().json("GET", `/tenants/${tenantId}/healthz`, { token: harness().adminToken })).body
        .vault.entries;

    test("the event id is the event name and the invitee's URI: a retry sent at another time is a duplicate", async () => {
      const t = await tenant();
      const payload = invitee();
      const body = calendlyEvent("invitee.created", payload);
      const first = await deliver(t.tenant_id, body);
      const entry = await readEntry(harness(), t.token, "relationship", first.entries[0]!);
      expect(entry.source.event_id).toBe(`invitee.created:${payload.uri}`);
      const retry = JSON.stringify({ ...JSON.parse(body), created_at: "2026-11-21T10:03:00.000000Z" });
      expect(await deliver(t.tenant_id, retry)).toMatchObject({ accepted: 0, duplicates: 1 });
    });

    test("a booking and its cancellation are two events; each no-show of the invitee is its own", async () => {
      const t = await tenant();
      const payload = invitee();
      expect((await deliver(t.tenant_id, calendlyEvent("invitee.created", payload))).accepted).toBe(1);
      expect(
        (await deliver(t.tenant_id, calendlyEvent("invitee.canceled", canceled(payload)))).accepted,
      ).toBe(1);
      // Marked, unmarked, then marked again: the second mark has a new no-show URI.
      expect(
        (await deliver(t.tenant_id, calendlyEvent("invitee_no_show.created", noShow(payload)))).accepted,
      ).toBe(1);
      expect(
        (await deliver(t.tenant_id, calendlyEvent("invitee_no_show.created", noShow(payload)))).accepted,
      ).toBe(1);
      expect(await entries(t.tenant_id)).toBe(4);
    });

    test("a reschedule: the old booking canceled to be rescheduled (low), the new one says so", async () => {
      const t = await tenant();
      const old = invitee();
      const fresh = invitee({ old_invitee: old.uri });
      const cancel = canceled(
        { ...old, rescheduled: true, new_invitee: fresh.uri },
        { reason: null, canceler_type: "invitee" },
      );
      const c = await deliver(t.tenant_id, calendlyEvent("invitee.canceled", cancel));
      const exception = await readEntry(harness(), t.token, "exception", c.entries[0]!);
      expect(exception).toMatchObject({ severity: "low" });
      expect(exception.content).toEndWith(
        "was canceled to be rescheduled by Grace Hopper (invitee) (no reason given).",
      );
      expect(exception.tags).toContain("rescheduled");
      const b = await deliver(t.tenant_id, calendlyEvent("invitee.created", fresh));
      const booking = await readEntry(harness(), t.token, "relationship", b.entries[0]!);
      expect(booking.content).toContain("(rescheduled from an earlier booking).");
    });

    test("an invitee without a name or email is dead-lettered as missing_field", async () => {
      const t = await tenant();
      const payload = invitee({ name: null, email: null, first_name: null, last_name: null });
      const summary = await deliver(t.tenant_id, calendlyEvent("invitee.created", payload));
      expect(summary).toMatchObject({ accepted: 0, entries: [], duplicates: 0, ignored: 0 });
      expect(summary.dead_lettered).toEqual([`invitee.created:${payload.uri}`]);
      expect(await entries(t.tenant_id)).toBe(0);
      const [dead] = await deadLetters(harness(), t.tenant_id);
      expect(dead).toMatchObject({ event_type: "invitee.created" });
      expect(dead!.last_error).toContain("payload.email");
    });

    test("a delivery signed two minutes ago is inside the 3-minute window", async () => {
      const t = await tenant();
      const signed = await schedulingSender.sign(calendlyEvent("invitee.created"), {
        now: clock.now() - 2 * 60_000,
        url: url(t.tenant_id),
      });
      const res = await post(t.tenant_id, signed);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { accepted: number }).accepted).toBe(1);
    });
  },
});
