import { expect, test } from "bun:test";
import {
  flagged,
  ISSUE_TRACKER_SECRET,
  identifierOf,
  issueCreated,
  issueDeleted,
  issueLinkCreated,
  issueTrackerSender,
  issueUpdated,
  jiraSignature,
  transitioned,
} from "../fakes/senders/issue-tracker.ts";
import { deadLetters, readEntry } from "../helpers/webhooks.ts";
import { describeSource } from "./conformance.ts";
import { withField } from "./lifecycle-conformance.ts";

/** The event `hours` hours before the samples' time. */
const earlier = (body: string, hours: number) =>
  withField(body, "timestamp", (JSON.parse(body) as { timestamp: number }).timestamp - hours * 3_600_000);

describeSource({
  sender: issueTrackerSender,
  mapped: [
    {
      name: "issue created",
      body: () => issueCreated({ key: "PAY-101" }),
      eventType: "jira:issue_created",
      category: "workflow",
      content:
        'Story PAY-101 "Refunds over 10k EUR need a second approver" was created in project Payments by Grace Hopper, assigned to Ada Lovelace; priority High, status To Do. https://acme.atlassian.net/browse/PAY-101',
      fields: {
        tags: ["issue_tracker", "issue", "created", "Story", "PAY"],
        data: { issue_key: "PAY-101", project: "PAY", priority: "High", labels: ["refunds", "compliance"] },
        valid_from: "2026-11-21T09:58:00.000Z",
      },
    },
    {
      name: "issue moved to Done (no decision to resolve)",
      body: () => transitioned("PAY-102", "In Progress", "Done", { resolution: "Done" }),
      eventType: "jira:issue_updated:done",
      category: "fact",
      content:
        'PAY-102 "Refunds over 10k EUR need a second approver" moved from In Progress to Done by Grace Hopper (resolution: Done).',
      fields: {
        tags: ["outcome", "issue_tracker", "issue", "done", "PAY"],
        data: { result: "success", issue_key: "PAY-102", status: "Done" },
      },
    },
    {
      name: "issue moved to Blocked",
      body: () => transitioned("PAY-103", "In Progress", "Blocked", { priority: "Medium" }),
      eventType: "jira:issue_updated:blocked",
      category: "exception",
      content:
        'PAY-103 "Refunds over 10k EUR need a second approver" is blocked: moved from In Progress to Blocked by Grace Hopper.',
      fields: { severity: "medium", status: "open", tags: ["issue_tracker", "issue", "blocked", "PAY"] },
    },
    {
      name: "issue link created",
      body: () => issueLinkCreated("10231", "10232", "Blocks"),
      eventType: "issuelink_created",
      category: "relationship",
      content: "Issue 10231 blocks issue 10232 (link type Blocks).",
      fields: { subject: "issue 10231", predicate: "blocks", object: "issue 10232" },
    },
  ],
  lifecycles: [
    {
      name: "issue moved to done",
      before: [
        { body: () => earlier(issueCreated({ key: "PAY-300" }), 3), category: "workflow", closed: "ended" },
        { body: () => earlier(flagged("PAY-300"), 2), category: "exception", closed: "resolved" },
      ],
      closing: {
        body: () => transitioned("PAY-300", "In Progress", "Done", { resolution: "Done" }),
        category: "fact",
      },
    },
  ],
  unmapped: () => issueDeleted(),
  more: ({ tenant, deliver, post, harness }) => {
    const entryCount = async (tenantId: string): Promise<number> =>
      (await harness().json("GET", `/tenants/${tenantId}/healthz`, { token: harness().adminToken })).body
        .vault.entries;

    test("an impediment flag is a blocked exception, its severity from the priority, with the flag's comment", async () => {
      const t = await tenant();
      const summary = await deliver(t.tenant_id, flagged("PAY-200"));
      const entry = await readEntry(harness(), t.token, "exception", summary.entries[0]!);
      expect(entry.content).toBe(
        'PAY-200 "Refunds over 10k EUR need a second approver" is blocked: flagged as an impediment by Grace Hopper: Waiting on the bank\'s sandbox credentials.',
      );
      expect(entry).toMatchObject({
        severity: "critical",
        source: { event_type: "jira:issue_updated:blocked" },
      });
    });

    test("a move into the done status category counts as done; a Won't Do resolution is neutral", async () => {
      const t = await tenant();
      const summary = await deliver(
        t.tenant_id,
        transitioned("PAY-201", "In Progress", "Closed", { resolution: "Won't Do" }),
      );
      const entry = await readEntry(harness(), t.token, "fact", summary.entries[0]!);
      expect(entry.source.event_type).toBe("jira:issue_updated:done");
      expect(entry.data).toMatchObject({ result: "neutral", resolution: "Won't Do" });
    });

    test("updates that move no status (an edit, a done issue re-labelled) are ignored", async () => {
      const t = await tenant();
      const edits = [
        issueUpdated({ key: "PAY-202" }, [{ field: "summary", fromString: "Old", toString: "New" }]),
        issueUpdated({ key: "PAY-203", status: "Done" }, [
          { field: "labels", fromString: "", toString: "x" },
        ]),
      ];
      for (const body of edits) expect((await deliver(t.tenant_id, body)).ignored).toBe(1);
      expect(await entryCount(t.tenant_id)).toBe(0);
    });

    test("without X-Atlassian-Webhook-Identifier the event id comes from the body, and still dedupes", async () => {
      const t = await tenant();
      const body = issueCreated({ key: "PAY-204" });
      const parsed = JSON.parse(body) as { issue: { id: string } };
      const bare = {
        body,
        headers: {
          "content-type": "application/json",
          "x-hub-signature": jiraSignature(ISSUE_TRACKER_SECRET, body),
        },
      };
      const first = await post(t.tenant_id, bare);
      expect(first.status).toBe(200);
      const written = (await first.json()) as { entries: string[] };
      const entry = await readEntry(harness(), t.token, "workflow", written.entries[0]!);
      expect(entry.source.event_id).toBe(
        `jira:issue_created:${parsed.issue.id}:${Date.UTC(2026, 10, 21, 9, 58)}`,
      );
      const again = await post(t.tenant_id, bare);
      expect(((await again.json()) as { duplicates: number }).duplicates).toBe(1);
    });

    test("an issue event without its key is dead-lettered as missing_field, under its identifier", async () => {
      const t = await tenant();
      const payload = JSON.parse(transitioned("PAY-205", "To Do", "Done")) as {
        issue: Record<string, unknown>;
      };
      delete payload.issue.key;
      const body = JSON.stringify(payload);
      const summary = await deliver(t.tenant_id, body);
      expect(summary).toMatchObject({ accepted: 0, entries: [], dead_lettered: [identifierOf(body)] });
      const [dead] = await deadLetters(harness(), t.tenant_id);
      expect(dead).toMatchObject({ event_id: identifierOf(body), event_type: "jira:issue_updated:done" });
      expect(dead!.last_error).toContain("missing_field");
      expect(await entryCount(t.tenant_id)).toBe(0);
    });
  },
});
