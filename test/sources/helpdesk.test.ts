import { expect, test } from "bun:test";
import { helpdeskSender, ticketDetail, zendeskEvent } from "../fakes/senders/helpdesk.ts";
import { expectProblem } from "../helpers/problem.ts";
import { deadLetters, readEntry } from "../helpers/webhooks.ts";
import { describeSource } from "./conformance.ts";

const comment = (isPublic: boolean) =>
  zendeskEvent("ticket.comment_added", {
    comment: {
      id: "9876543210",
      body: "We are investigating this issue and will update you shortly.",
      is_public: isPublic,
      author: { id: "8447388090495", is_staff: true, name: "Grace Hopper" },
    },
  });

describeSource({
  sender: helpdeskSender,
  mapped: [
    {
      name: "ticket created",
      body: () => zendeskEvent("ticket.created"),
      eventType: "zen:event-type:ticket.created",
      category: "workflow",
      content:
        'Support ticket #5158 "Cannot login to mobile app" was opened (high problem) by requester 8447388090494 via web_service, assigned to 8447388090495.\n\nCustomer is experiencing login issues with the mobile app',
      fields: {
        tags: ["helpdesk", "ticket", "created", "high", "mobile", "login"],
        data: { ticket_id: "5158", status: "open", priority: "high", via: "web_service" },
        valid_from: "2026-11-21T09:12:07.000Z",
      },
    },
    {
      name: "ticket solved (no decision to resolve)",
      body: () =>
        zendeskEvent(
          "ticket.status_changed",
          { current: "SOLVED", previous: "OPEN" },
          ticketDetail({ status: "SOLVED" }),
        ),
      eventType: "zen:event-type:ticket.status_changed:solved",
      category: "fact",
      content:
        'Support ticket #5158 "Cannot login to mobile app" was solved (was open) by assignee 8447388090495.',
      fields: {
        tags: ["outcome", "helpdesk", "ticket", "solved", "mobile", "login"],
        data: { result: "success", ticket_id: "5158", previous_status: "open", status: "solved" },
        valid_from: "2026-11-21T09:58:30.672Z",
      },
    },
    {
      name: "ticket priority changed to urgent",
      body: () =>
        zendeskEvent(
          "ticket.priority_changed",
          { current: "URGENT", previous: "HIGH" },
          ticketDetail({ priority: "URGENT" }),
        ),
      eventType: "zen:event-type:ticket.priority_changed:urgent",
      category: "exception",
      content:
        'Support ticket #5158 "Cannot login to mobile app" was escalated to urgent priority (was high); status open, assignee 8447388090495.',
      fields: {
        severity: "critical",
        status: "open",
        data: { previous_priority: "high", priority: "urgent" },
      },
    },
    {
      name: "comment added",
      body: () => comment(true),
      eventType: "zen:event-type:ticket.comment_added",
      category: "fact",
      content:
        'Grace Hopper (agent) added a public comment to ticket #5158 "Cannot login to mobile app":\n\nWe are investigating this issue and will update you shortly.',
      fields: {
        tags: ["helpdesk", "ticket", "comment", "public", "mobile", "login"],
        data: { comment_id: "9876543210", author_name: "Grace Hopper", is_public: true },
      },
    },
  ],
  lifecycles: [
    {
      name: "ticket solved",
      before: [
        { body: () => zendeskEvent("ticket.created"), category: "workflow", closed: "ended" },
        {
          body: () =>
            zendeskEvent(
              "ticket.priority_changed",
              { current: "URGENT", previous: "HIGH" },
              ticketDetail({ priority: "URGENT" }),
            ),
          category: "exception",
          closed: "resolved",
        },
      ],
      closing: {
        body: () =>
          zendeskEvent(
            "ticket.status_changed",
            { current: "SOLVED", previous: "OPEN" },
            ticketDetail({ status: "SOLVED" }),
          ),
        category: "fact",
      },
    },
  ],
  // A status change the table does not cover (only a change to solved is an outcome).
  unmapped: () =>
    zendeskEvent(
      "ticket.status_changed",
      { current: "PENDING", previous: "OPEN" },
      ticketDetail({ status: "PENDING" }),
    ),
  more: ({ tenant, deliver, post, harness, clock, url }) => {
    const entries = async (tenantId: string): Promise<number> =>
      (await harness().json("GET", `/tenants/${tenantId}/healthz`, { token: harness().adminToken })).body
        .vault.entries;

    test("the event id is the body's id", async () => {
      const t = await tenant();
      const body = zendeskEvent("ticket.created");
      const summary = await deliver(t.tenant_id, body);
      const entry = await readEntry(harness(), t.token, "workflow", summary.entries[0]!);
      expect(entry.source.event_id).toBe(JSON.parse(body).id);
    });

    test("a priority change to anything but urgent, and a user event, are ignored", async () => {
      const t = await tenant();
      const high = zendeskEvent("ticket.priority_changed", { current: "HIGH", previous: "NORMAL" });
      expect(await deliver(t.tenant_id, high)).toMatchObject({ accepted: 0, ignored: 1 });
      const user = JSON.stringify({
        type: "zen:event-type:user.active_changed",
        account_id: 22129848,
        id: "2b24ef10-19d4-4740-93cf-8f98ec4776c0",
        time: "2026-11-21T09:58:30Z",
        zendesk_event_version: "2022-06-20",
        subject: "zen:user:6596848315901",
        detail: { id: "6596848315901", role: "end-user" },
        event: { current: false, previous: true },
      });
      expect(await deliver(t.tenant_id, user)).toMatchObject({ accepted: 0, ignored: 1 });
      expect(await entries(t.tenant_id)).toBe(0);
    });

    test("an internal note is a fact tagged internal", async () => {
      const t = await tenant();
      const summary = await deliver(t.tenant_id, comment(false));
      const entry = await readEntry(harness(), t.token, "fact", summary.entries[0]!);
      expect(entry.content).toStartWith("Grace Hopper (agent) added an internal note to ticket #5158");
      expect(entry.tags).toContain("internal");
    });

    test("a solved ticket without its id is dead-lettered as missing_field", async () => {
      const t = await tenant();
      const body = JSON.stringify({
        ...JSON.parse(zendeskEvent("ticket.status_changed", { current: "SOLVED", previous: "OPEN" })),
        subject: "zen:ticket:",
        detail: ticketDetail({ id: null, status: "SOLVED" }),
      });
      const summary = await deliver(t.tenant_id, body);
      expect(summary).toMatchObject({ accepted: 0, entries: [], duplicates: 0, ignored: 0 });
      expect(summary.dead_lettered).toEqual([JSON.parse(body).id]);
      expect(await entries(t.tenant_id)).toBe(0);
      const [dead] = await deadLetters(harness(), t.tenant_id);
      expect(dead).toMatchObject({ event_type: "zen:event-type:ticket.status_changed:solved" });
      expect(dead!.last_error).toContain("detail.id");
    });

    test("a timestamp too far in the future → 401", async () => {
      const t = await tenant();
      const signed = await helpdeskSender.sign(zendeskEvent("ticket.created"), {
        now: clock.now() + 6 * 60_000,
        url: url(t.tenant_id),
      });
      await expectProblem(await post(t.tenant_id, signed), 401, "unauthorized");
    });

    test("a timestamp that is not RFC 3339 → 401", async () => {
      const t = await tenant();
      const body = zendeskEvent("ticket.created");
      const signed = await helpdeskSender.sign(body, { now: clock.now(), url: url(t.tenant_id) });
      const epoch = String(Math.floor(clock.now() / 1000));
      const headers = { ...signed.headers, "x-zendesk-webhook-signature-timestamp": epoch };
      await expectProblem(await post(t.tenant_id, { ...signed, headers }), 401, "unauthorized");
      expect(await entries(t.tenant_id)).toBe(0);
    });
  },
});
