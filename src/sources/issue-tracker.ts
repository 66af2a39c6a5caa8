/**
 * `issue_tracker` (modelled on Jira Cloud): an admin webhook registered with a secret signs the raw
 * body as `X-Hub-Signature: sha256=<hex HMAC-SHA256>` (the WebSub form). `X-Atlassian-Webhook-Identifier`,
 * kept across retries, dedupes (else the event, its issue or link id and its timestamp).
 * `jira:issue_updated` is refined by its changelog: a move to Done (or into the done status category)
 * is an outcome about the issue key, a move to Blocked or an impediment flag is an exception.
 */
import { at, defineSource, type Event, textAt } from "./kit/define-source.ts";
import { clip } from "./kit/draft.ts";
import { isRecord } from "./kit/request.ts";
import { hmacScheme, payloads, signatures } from "./kit/signature.ts";

type Change = Record<string, unknown>;

const changes = (ev: Event): Change[] => {
  const items = at(ev, "changelog.items");
  return Array.isArray(items) ? items.filter(isRecord) : [];
};
const changeOf = (ev: Event, field: string) =>
  changes(ev).find((item) => textAt(item, "field")?.toLowerCase() === field);

/** Jira names the event `webhookEvent`; an update is refined by what its changelog moved. */
function typeOf(ev: Event): string | undefined {
  const name = textAt(ev, "webhookEvent");
  if (name !== "jira:issue_updated") return name;
  const status = changeOf(ev, "status");
  const to = status ? textAt(status, "toString")?.toLowerCase() : undefined;
  if (status && (to === "done" || textAt(ev, "issue.fields.status.statusCategory.key") === "done"))
    return `${name}:done`;
  if (to === "blocked") return `${name}:blocked`;
  const flag = changeOf(ev, "flagged");
  if (flag && /impediment/i.test(textAt(flag, "toString") ?? "")) return `${name}:blocked`;
  return name;
}

function idOf(ev: Event, req: { headers: Headers }): string | undefined {
  const header = req.headers.get("x-atlassian-webhook-identifier")?.trim();
  if (header) return header;
  const about = textAt(ev, "issue.id") ?? textAt(ev, "issueLink.id");
  const name = textAt(ev, "webhookEvent");
  const stamp = textAt(ev, "timestamp");
  return name && about && stamp ? `${name}:${about}:${stamp}` : undefined;
}

const field = (ev: Event, path: string) => textAt(ev, `issue.fields.${path}`);
/** The issue key, which every issue mapping requires. */
const key = (ev: Event) => textAt(ev, "issue.key")!;
/** `PAY-101 "Refunds need a second approver"` (the summary when there is one). */
const named = (ev: Event) => `${key(ev)}${field(ev, "summary") ? ` "${field(ev, "summary")}"` : ""}`;
const by = (ev: Event) => (textAt(ev, "user.displayName") ? ` by ${textAt(ev, "user.displayName")}` : "");
const projectKey = (ev: Event) => field(ev, "project.key");

/** `https://acme.atlassian.net/browse/KEY`, from the issue's REST `self` link. */
function browseUrl(ev: Event): string | undefined {
  const self = textAt(ev, "issue.self");
  const issueKey = textAt(ev, "issue.key");
  const origin = self && /^https?:\/\/[^/]+/.exec(self)?.[0];
  return origin && issueKey ? `${origin}/browse/${issueKey}` : undefined;
}

const SEVERITY: Readonly<Record<string, "critical" | "high" | "medium" | "low">> = {
  blocker: "critical",
  highest: "critical",
  critical: "critical",
  high: "high",
  major: "high",
  medium: "medium",
  low: "low",
  lowest: "low",
  minor: "low",
  trivial: "low",
};

/** Resolutions that close an issue without the work having been done. */
const NOT_DONE = /won'?t|duplicate|cannot reproduce|declined|invalid|obsolete/i;

const issueData = (ev: Event) => ({
  issue_key: textAt(ev, "issue.key"),
  issue_id: textAt(ev, "issue.id"),
  summary: field(ev, "summary"),
  issue_type: field(ev, "issuetype.name"),
  project: projectKey(ev),
  status: field(ev, "status.name"),
  priority: field(ev, "priority.name"),
  assignee: field(ev, "assignee.displayName"),
  reporter: field(ev, "reporter.displayName"),
  labels: at(ev, "issue.fields.labels"),
  url: browseUrl(ev),
  by: textAt(ev, "user.displayName"),
});

/** `moved from In Progress to Done`, or undefined when the change names no status it moved to. */
function moved(change: Change | undefined): string | undefined {
  const to = change ? textAt(change, "toString") : undefined;
  if (!to) return undefined;
  const from = textAt(change, "fromString");
  return `moved ${from ? `from ${from} ` : ""}to ${to}`;
}

/** Link types name their direction (`blocks` / `is blocked by`); sub-task links only carry system names. */
function predicateOf(ev: Event): string {
  if (at(ev, "issueLink.issueLinkType.isSubTaskLinkType") === true) return "has sub-task";
  return (
    textAt(ev, "issueLink.issueLinkType.outwardName") ??
    textAt(ev, "issueLink.issueLinkType.name")?.toLowerCase() ??
    "is linked to"
  );
}

export const issueTrackerSource = defineSource({
  id: "issue_tracker",
  secrets: ["ISSUE_TRACKER_WEBHOOK_SECRET"],
  verify: hmacScheme({
    secret: "ISSUE_TRACKER_WEBHOOK_SECRET",
    hash: "sha256",
    encoding: "hex",
    signatures: signatures.header("x-hub-signature", "sha256="),
    payload: payloads.body,
  }),
  eventId: idOf,
  eventType: typeOf,
  mappings: {
    "jira:issue_created": {
      category: "workflow",
      required: ["issue.key"],
      content: (ev) => {
        const assignee = field(ev, "assignee.displayName");
        const project = field(ev, "project.name") ?? projectKey(ev);
        const priority = field(ev, "priority.name");
        const status = field(ev, "status.name");
        const state = [priority && `priority ${priority}`, status && `status ${status}`].filter(Boolean);
        const url = browseUrl(ev);
        return `${field(ev, "issuetype.name") ?? "Issue"} ${named(ev)} was created${project ? ` in project ${project}` : ""}${by(ev)}${assignee ? `, assigned to ${assignee}` : ""}${state.length ? `; ${state.join(", ")}` : ""}.${url ? ` ${url}` : ""}`;
      },
      tags: (ev) => ["issue", "created", field(ev, "issuetype.name"), projectKey(ev)],
      data: issueData,
      object: key,
      lifecycle: "state",
      validFrom: (ev) => ev.timestamp,
    },
    "jira:issue_updated:done": {
      category: "outcome",
      required: ["issue.key"],
      content: (ev) => {
        const resolution = field(ev, "resolution.name");
        return `${named(ev)} ${moved(changeOf(ev, "status")) ?? "was completed"}${by(ev)}${resolution ? ` (resolution: ${resolution})` : ""}.`;
      },
      fields: (ev) => ({ result: NOT_DONE.test(field(ev, "resolution.name") ?? "") ? "neutral" : "success" }),
      tags: (ev) => ["issue", "done", projectKey(ev)],
      data: (ev) => ({ ...issueData(ev), resolution: field(ev, "resolution.name") }),
      object: key,
      lifecycle: "close",
      validFrom: (ev) => ev.timestamp,
    },
    "jira:issue_updated:blocked": {
      category: "exception",
      required: ["issue.key"],
      content: (ev) => {
        const status = changeOf(ev, "status");
        const movedToBlocked = textAt(status, "toString")?.toLowerCase() === "blocked";
        const how = (movedToBlocked && moved(status)) || "flagged as an impediment";
        const comment = textAt(ev, "comment.body");
        return `${named(ev)} is blocked: ${how}${by(ev)}${comment ? `: ${clip(comment, 500)}` : "."}`;
      },
      fields: (ev) => ({
        severity: SEVERITY[field(ev, "priority.name")?.toLowerCase() ?? ""] ?? "medium",
        status: "open",
      }),
      tags: (ev) => ["issue", "blocked", projectKey(ev)],
      data: issueData,
      // Of its issue: resolved when the issue is done.
      object: key,
      validFrom: (ev) => ev.timestamp,
    },
    issuelink_created: {
      category: "relationship",
      required: ["issueLink.sourceIssueId", "issueLink.destinationIssueId"],
      content: (ev) => {
        const type = textAt(ev, "issueLink.issueLinkType.name");
        return `Issue ${textAt(ev, "issueLink.sourceIssueId")!} ${predicateOf(ev)} issue ${textAt(ev, "issueLink.destinationIssueId")!}${type ? ` (link type ${type})` : ""}.`;
      },
      fields: (ev) => ({
        subject: `issue ${textAt(ev, "issueLink.sourceIssueId")!}`,
        predicate: predicateOf(ev),
        object: `issue ${textAt(ev, "issueLink.destinationIssueId")!}`,
      }),
      tags: (ev) => ["issue_link", textAt(ev, "issueLink.issueLinkType.name")],
      data: (ev) => ({
        link_id: textAt(ev, "issueLink.id"),
        link_type: textAt(ev, "issueLink.issueLinkType.name"),
        source_issue_id: textAt(ev, "issueLink.sourceIssueId"),
        destination_issue_id: textAt(ev, "issueLink.destinationIssueId"),
        inward: textAt(ev, "issueLink.issueLinkType.inwardName"),
      }),
      validFrom: (ev) => ev.timestamp,
    },
  },
});
