import { expect, test } from "bun:test";
import { NOTHING_WRITTEN } from "../../src/sources/kit/define-source.ts";
import {
  APP_ID,
  contact,
  conversation,
  conversationClosed,
  conversationCreated,
  conversationReopened,
  conversationReplied,
  intercomSignature,
  legacyUserCreated,
  notification,
  ping,
  supportChatSender,
} from "../fakes/senders/support-chat.ts";
import { expectProblem } from "../helpers/problem.ts";
import { deadLetters, readEntry } from "../helpers/webhooks.ts";
import { describeSource } from "./conformance.ts";

const ASKED = "Hi, I was charged twice for order #1042. Can you refund one?";

describeSource({
  sender: supportChatSender,
  mapped: [
    {
      name: "conversation created by a user",
      body: () => conversationCreated("215001"),
      eventType: "conversation.user.created",
      category: "workflow",
      content: `Conversation 215001 was started by Ada Lovelace <ada@example.com> (customer_initiated): ${ASKED}`,
      fields: {
        tags: ["support_chat", "conversation", "created", "billing"],
        data: {
          conversation_id: "215001",
          state: "open",
          contacts: ["6762f0d51bb69f9f2193bb7f"],
          app_id: APP_ID,
        },
        valid_from: "2026-11-21T09:12:00.000Z",
      },
    },
    {
      name: "conversation closed by an admin (no decision to resolve)",
      body: () => conversationClosed("215002"),
      eventType: "conversation.admin.closed",
      category: "fact",
      content: `Conversation 215002 ("${ASKED}") with Ada Lovelace <ada@example.com> was closed by Grace Hopper <grace@acme.test>: Refunded the duplicate charge.`,
      fields: {
        tags: ["outcome", "support_chat", "conversation", "closed", "billing"],
        data: { result: "success", conversation_id: "215002", time_to_first_close: 2730 },
        valid_from: "2026-11-21T09:59:30.000Z",
      },
    },
    {
      name: "contact (user) created",
      body: () => notification("contact.user.created", contact("user")),
      eventType: "contact.user.created",
      category: "relationship",
      content: `Ada Lovelace <ada@example.com> is a user of Intercom workspace ${APP_ID} (United Kingdom).`,
      fields: {
        subject: "Ada Lovelace <ada@example.com>",
        predicate: "is a user of",
        object: `Intercom workspace ${APP_ID}`,
        data: { role: "user", external_id: "cus_Q1w2E3" },
      },
    },
  ],
  lifecycles: [
    {
      name: "conversation closed",
      before: [{ body: () => conversationCreated("215900"), category: "workflow", closed: "ended" }],
      closing: { body: () => conversationClosed("215900"), category: "fact" },
    },
  ],
  unmapped: () => conversationReplied(),
  more: ({ tenant, deliver, post, harness }) => {
    const entryCount = async (tenantId: string): Promise<number> =>
      (await harness().json("GET", `/tenants/${tenantId}/healthz`, { token: harness().adminToken })).body
        .vault.entries;

    test("ping (Intercom's subscription test) is answered 200 after the signature check, nothing written", async () => {
      const t = await tenant();
      const res = await post(t.tenant_id, await supportChatSender.sign(ping(), { now: 0, url: "" }));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(NOTHING_WRITTEN);
      expect(await entryCount(t.tenant_id)).toBe(0);
      expect(await deadLetters(harness(), t.tenant_id)).toEqual([]);
      const body = ping();
      const forged = { body, headers: { "x-hub-signature": intercomSignature("not the secret", body) } };
      await expectProblem(await post(t.tenant_id, forged), 401, "unauthorized");
    });

    test("an admin reopening a conversation is a workflow too", async () => {
      const t = await tenant();
      const summary = await deliver(t.tenant_id, conversationReopened("215003"));
      const entry = await readEntry(harness(), t.token, "workflow", summary.entries[0]!);
      expect(entry.content).toBe(
        `Conversation 215003 was reopened by Grace Hopper <grace@acme.test>: ${ASKED}`,
      );
      expect(entry.tags).toContain("reopened");
    });

    test("a lead, and a user of the legacy user.created topic, become relationships", async () => {
      const t = await tenant();
      const lead = await deliver(t.tenant_id, notification("contact.lead.created", contact("lead")));
      expect(await readEntry(harness(), t.token, "relationship", lead.entries[0]!)).toMatchObject({
        subject: "Ada Lovelace <ada@example.com>",
        predicate: "is a lead of",
        tags: ["support_chat", "contact", "lead"],
      });
      const legacy = await deliver(t.tenant_id, legacyUserCreated());
      expect(await readEntry(harness(), t.token, "relationship", legacy.entries[0]!)).toMatchObject({
        subject: "Grace Hopper <grace@example.com>",
        predicate: "is a user of",
        source: { event_type: "user.created" },
      });
    });

    test("a closed conversation without its id is dead-lettered as missing_field, under the notification id", async () => {
      const t = await tenant();
      const { id: _id, ...item } = conversation({ state: "closed" });
      const body = notification("conversation.admin.closed", item, "notif_missing-conversation-id");
      const summary = await deliver(t.tenant_id, body);
      expect(summary).toMatchObject({
        accepted: 0,
        entries: [],
        dead_lettered: ["notif_missing-conversation-id"],
      });
      const [dead] = await deadLetters(harness(), t.tenant_id);
      expect(dead!.last_error).toContain("missing_field");
      expect(await entryCount(t.tenant_id)).toBe(0);
    });
  },
});
