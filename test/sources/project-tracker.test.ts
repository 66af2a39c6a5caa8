import { expect, test } from "bun:test";
import { LinearWebhookClient } from "@linear/sdk/webhooks";
import {
  commentCreated,
  completedIssueReprioritised,
  deliveryOf,
  issueCompleted,
  issueCreated,
  linearHeaders,
  linearSignature,
  PROJECT_TRACKER_SECRET,
  projectTrackerSender,
  projectUpdateCreated,
  slaEvent,
  stamped,
} from "../fakes/senders/project-tracker.ts";
import { expectProblem } from "../helpers/problem.ts";
import { deadLetters, readEntry } from "../helpers/webhooks.ts";
import { describeSource } from "./conformance.ts";
import { withField } from "./lifecycle-conformance.ts";

/** The issue the lifecycle sample is about. */
const ISSUE = "5d4c3b2a-1000-4000-8000-00000000feed";

describeSource({
  sender: projectTrackerSender,
  mapped: [
    {
      name: "issue created",
      body: () => issueCreated({ number: 401 }),
      eventType: "Issue.create",
      category: "workflow",
      content:
        'ENG-401 "Webhook retries double-post invoices" was created in team Engineering by Grace Hopper, assigned to Ada Lovelace; priority High, state Todo: https://linear.app/acme/issue/ENG-401/webhook-retries-double-post-invoices',
      fields: {
        tags: ["project_tracker", "issue", "created", "ENG", "Bug"],
        data: { identifier: "ENG-401", team: "ENG", priority: "High", labels: ["Bug"] },
        valid_from: "2026-11-21T09:30:00.000Z",
      },
    },
    {
      name: "issue completed (no decision to resolve)",
      body: () => issueCompleted({ number: 402 }),
      eventType: "Issue.completed",
      category: "fact",
      content: 'ENG-402 "Webhook retries double-post invoices" was completed (moved to Done) by Grace Hopper',
      fields: {
        tags: ["outcome", "project_tracker", "issue", "completed", "ENG"],
        data: { result: "success", identifier: "ENG-402", completed_at: "2026-11-21T09:59:58.000Z" },
        valid_from: "2026-11-21T09:59:58.000Z",
      },
    },
    {
      name: "issue SLA breached",
      body: () => slaEvent("breached", { number: 403, priority: 1 }),
      eventType: "IssueSLA.breached",
      category: "exception",
      content:
        'SLA breached on ENG-403 "Webhook retries double-post invoices" (priority Urgent, due 2026-11-21T10:00:00.000Z, assigned to Ada Lovelace)',
      fields: { severity: "critical", status: "open", data: { sla_type: "all", identifier: "ENG-403" } },
    },
    {
      name: "comment created",
      body: () => commentCreated(),
      eventType: "Comment.create",
      category: "fact",
      content:
        'Ada Lovelace commented on ENG-512 "Webhook retries double-post invoices": Reproduced on staging: the retry reuses no idempotency key.',
      fields: {
        tags: ["project_tracker", "comment", "ENG"],
        data: { identifier: "ENG-512", author: "Ada Lovelace" },
      },
    },
  ],
  lifecycles: [
    {
      name: "issue completed",
      before: [
        { body: () => issueCreated({ id: ISSUE }), category: "workflow", closed: "ended" },
        {
          body: () => withField(slaEvent("breached", { id: ISSUE }), "createdAt", "2026-11-21T09:45:00.000Z"),
          category: "exception",
          closed: "resolved",
        },
      ],
      closing: { body: () => issueCompleted({ id: ISSUE }), category: "fact" },
    },
  ],
  unmapped: () => projectUpdateCreated(),
  more: ({ tenant, deliver, post, harness, clock }) => {
    const entryCount = async (tenantId: string): Promise<number> =>
      (await harness().json("GET", `/tenants/${tenantId}/healthz`, { token: harness().adminToken })).body
        .vault.entries;
    const signedAt = (body: string, at: number, headers = linearHeaders(body)) => {
      const sent = stamped(body, at);
      return {
        body: sent,
        headers: { ...headers, "linear-signature": linearSignature(PROJECT_TRACKER_SECRET, sent) },
      };
    };

    test("an update of a completed issue that moves no state, and an SLA at high risk, are ignored", async () => {
      const t = await tenant();
      for (const body of [completedIssueReprioritised(), slaEvent("highRisk")])
        expect((await deliver(t.tenant_id, body)).ignored).toBe(1);
      expect(await entryCount(t.tenant_id)).toBe(0);
    });

    test("a webhookTimestamp more than 60 s ahead, or none at all, → 401 even when signed", async () => {
      const t = await tenant();
      await expectProblem(
        await post(t.tenant_id, signedAt(issueCreated(), clock.now() + 61_000)),
        401,
        "unauthorized",
      );
      const unstamped = issueCreated().replace(/,"webhookTimestamp":\d+/, "");
      expect(unstamped).not.toContain("webhookTimestamp");
      await expectProblem(await post(t.tenant_id, signedAt(unstamped, clock.now())), 401, "unauthorized");
      // Inside the window either way is accepted.
      const res = await post(t.tenant_id, signedAt(issueCreated(), clock.now() + 59_000));
      expect(res.status).toBe(200);
    });

    test("without Linear-Delivery the event id is webhookId + webhookTimestamp", async () => {
      const t = await tenant();
      const body = issueCreated();
      const { "linear-delivery": _dropped, ...headers } = linearHeaders(body);
      const res = await post(t.tenant_id, signedAt(body, clock.now(), headers));
      const summary = (await res.json()) as { entries: string[] };
      const entry = await readEntry(harness(), t.token, "workflow", summary.entries[0]!);
      expect(entry.source.event_id).toBe(`a8e1d6c4-2b3f-4a5e-8c7d-9e0f1a2b3c4d:${clock.now()}`);
    });

    test("a completion without the issue id is dead-lettered as missing_field, under its delivery id", async () => {
      const t = await tenant();
      const payload = JSON.parse(issueCompleted()) as { data: Record<string, unknown> };
      delete payload.data.id;
      delete payload.data.identifier;
      const body = JSON.stringify(payload);
      const summary = await deliver(t.tenant_id, body);
      expect(summary).toMatchObject({ accepted: 0, entries: [], dead_lettered: [deliveryOf(body)] });
      const [dead] = await deadLetters(harness(), t.tenant_id);
      expect(dead).toMatchObject({ event_id: deliveryOf(body), event_type: "Issue.completed" });
      expect(dead!.last_error).toContain("missing_field");
      expect(await entryCount(t.tenant_id)).toBe(0);
    });

    test("@linear/sdk's LinearWebhookClient verifies what our sender signs", async () => {
      // The SDK checks webhookTimestamp against the real clock, so this delivery is signed now.
      const signed = await projectTrackerSender.sign(issueCompleted(), { now: Date.now(), url: "" });
      const body = Buffer.from(signed.body as string);
      const signature = signed.headers["linear-signature"]!;
      const client = new LinearWebhookClient(PROJECT_TRACKER_SECRET);
      expect(client.verify(body, signature)).toBe(true);
      expect(client.parseData(body, signature)).toMatchObject({ type: "Issue", action: "update" });
      expect(() => new LinearWebhookClient("lin_wh_another_secret").verify(body, signature)).toThrow();
      // A body the SDK would refuse as stale, our route refuses too.
      const stale = await projectTrackerSender.sign(issueCompleted(), { now: Date.now() - 120_000, url: "" });
      expect(() =>
        client.verify(Buffer.from(stale.body as string), stale.headers["linear-signature"]!),
      ).toThrow();
      const t = await tenant();
      const old = await projectTrackerSender.sign(issueCompleted(), { now: clock.now() - 120_000, url: "" });
      await expectProblem(await post(t.tenant_id, old), 401, "unauthorized");
    });
  },
});
