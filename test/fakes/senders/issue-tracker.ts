import { createHmac, randomInt } from "node:crypto";
import type { PlatformSender, Signed } from "./sender.ts";

/**
 * Jira Cloud's signing of an admin webhook registered with a secret: `X-Hub-Signature:
 * sha256=<hex HMAC-SHA256 of the body>`. Each delivery carries `X-Atlassian-Webhook-Identifier`,
 * unchanged when Jira retries it.
 */
export const ISSUE_TRACKER_SECRET = "jira-wh-7Qm2Xc9LpV4sT8nB3kF6hJ1d";
const OLD_SECRET = "jira-wh-the-secret-before-rotation";

export function jiraSignature(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

const identifiers = new Map<string, string>();

/** The `X-Atlassian-Webhook-Identifier` of a body: fixed per body, as a retry keeps it. */
export function identifierOf(body: string): string {
  if (!identifiers.has(body)) identifiers.set(body, String(randomInt(1_000_000_000, 9_999_999_999)));
  return identifiers.get(body)!;
}

export function jiraHeaders(body: string): Record<string, string> {
  return {
    "content-type": "application/json; charset=utf-8",
    "user-agent": "Atlassian Webhook HTTP Client",
    "x-atlassian-webhook-identifier": identifierOf(body),
    "x-atlassian-webhook-flow": "Primary",
  };
}

const signed = (body: string, signature: string): Signed => ({
  headers: { ...jiraHeaders(body), "x-hub-signature": signature },
  body,
});

export const issueTrackerSender: PlatformSender = {
  source: "issue_tracker",
  secrets: { ISSUE_TRACKER_WEBHOOK_SECRET: ISSUE_TRACKER_SECRET },
  signsBody: true,
  sign: (body) => signed(body, jiraSignature(ISSUE_TRACKER_SECRET, body)),
  // Jira sends one signature; a header sent twice arrives joined with ", ".
  signRotated: (body) =>
    signed(body, `${jiraSignature(OLD_SECRET, body)}, ${jiraSignature(ISSUE_TRACKER_SECRET, body)}`),
};

// ── real-shaped payloads ────────────────────────────────────────────────────────────────────

const SITE = "https://acme.atlassian.net";
const TIMESTAMP = Date.UTC(2026, 10, 21, 9, 58, 0);

const person = (displayName: string) => ({
  self: `${SITE}/rest/api/2/user?accountId=5b10a2844c20165700ede21g`,
  accountId: `5b10a2844c20165700ede${randomInt(100, 999)}`,
  displayName,
  active: true,
  timeZone: "Europe/Berlin",
  accountType: "atlassian",
});

const STATUS: Record<string, { id: string; category: string }> = {
  "To Do": { id: "10000", category: "new" },
  "In Progress": { id: "3", category: "indeterminate" },
  Blocked: { id: "10004", category: "indeterminate" },
  Done: { id: "10001", category: "done" },
  Closed: { id: "6", category: "done" },
};

export interface IssueShape {
  key?: string;
  summary?: string;
  status?: string;
  priority?: string;
  issueType?: string;
  resolution?: string;
}

export function jiraIssue(shape: IssueShape = {}) {
  const key = shape.key ?? `PAY-${randomInt(100, 9_999)}`;
  const id = String(randomInt(10_000, 99_999));
  const status = shape.status ?? "To Do";
  const category = STATUS[status]?.category ?? "indeterminate";
  return {
    id,
    self: `${SITE}/rest/api/2/issue/${id}`,
    key,
    fields: {
      summary: shape.summary ?? "Refunds over 10k EUR need a second approver",
      issuetype: { id: "10002", name: shape.issueType ?? "Story", subtask: false },
      project: { id: "10000", key: key.split("-")[0], name: "Payments", projectTypeKey: "software" },
      priority: { id: "2", name: shape.priority ?? "High" },
      status: {
        id: STATUS[status]?.id ?? "10010",
        name: status,
        statusCategory: { id: 3, key: category, name: category === "done" ? "Done" : "In Progress" },
      },
      resolution: shape.resolution ? { id: "10000", name: shape.resolution } : null,
      assignee: person("Ada Lovelace"),
      reporter: person("Grace Hopper"),
      labels: ["refunds", "compliance"],
      created: "2026-11-20T08:12:44.123+0000",
      updated: "2026-11-21T09:58:00.000+0000",
    },
  };
}

function envelope(webhookEvent: string, extra: Record<string, unknown>): string {
  return JSON.stringify({ timestamp: TIMESTAMP, webhookEvent, ...extra, user: person("Grace Hopper") });
}

export function issueCreated(shape: IssueShape = {}): string {
  return envelope("jira:issue_created", { issue_event_type_name: "issue_created", issue: jiraIssue(shape) });
}

export interface ChangeItem {
  field: string;
  fromString: string | null;
  toString: string | null;
}

/** `jira:issue_updated` with the issue as it stands after the change and the changelog of it. */
export function issueUpdated(
  shape: IssueShape,
  items: ChangeItem[],
  eventTypeName = "issue_generic",
  extra: Record<string, unknown> = {},
): string {
  return envelope("jira:issue_updated", {
    issue_event_type_name: eventTypeName,
    issue: jiraIssue(shape),
    changelog: {
      id: String(randomInt(10_000, 99_999)),
      items: items.map((item) => ({
        ...item,
        fieldtype: "jira",
        fieldId: item.field.toLowerCase(),
        from: item.fromString === null ? null : (STATUS[item.fromString]?.id ?? null),
        to: item.toString === null ? null : (STATUS[item.toString]?.id ?? null),
      })),
    },
    ...extra,
  });
}

/** A transition of the issue's status, the status after it being `to`. */
export function transitioned(key: string, from: string, to: string, shape: IssueShape = {}): string {
  return issueUpdated({ ...shape, key, status: to }, [{ field: "status", fromString: from, toString: to }]);
}

/** The Flagged field set to Impediment, as Jira's board "Add flag" does (with its comment). */
export function flagged(key: string, comment = "Waiting on the bank's sandbox credentials."): string {
  return issueUpdated(
    { key, status: "In Progress", priority: "Highest" },
    [{ field: "Flagged", fromString: null, toString: "Impediment" }],
    "issue_commented",
    { comment: { id: String(randomInt(10_000, 99_999)), body: comment, author: person("Ada Lovelace") } },
  );
}

export function issueLinkCreated(source: string, destination: string, type = "Blocks"): string {
  const names: Record<string, [string, string]> = {
    Blocks: ["blocks", "is blocked by"],
    Relates: ["relates to", "relates to"],
    Duplicate: ["duplicates", "is duplicated by"],
  };
  const [outwardName, inwardName] = names[type] ?? [type.toLowerCase(), type.toLowerCase()];
  return JSON.stringify({
    timestamp: TIMESTAMP,
    webhookEvent: "issuelink_created",
    issueLink: {
      id: randomInt(10_000, 99_999),
      sourceIssueId: Number(source),
      destinationIssueId: Number(destination),
      issueLinkType: {
        id: 10000,
        name: type,
        outwardName,
        inwardName,
        isSubTaskLinkType: false,
        isSystemLinkType: false,
      },
    },
  });
}

export function issueDeleted(shape: IssueShape = {}): string {
  return envelope("jira:issue_deleted", { issue_event_type_name: "issue_deleted", issue: jiraIssue(shape) });
}
