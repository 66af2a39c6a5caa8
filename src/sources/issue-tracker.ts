/**
 * `issue_tracker` (modelled on Jira Cloud): an admin webhook registered with a secret signs the raw
 * body as `X-Hub-Signature: sha256=<hex HMAC-SHA256>` (the WebSub form). `X-Atlassian-Webhook-Identifier`,
 * kept across retries, dedupes (else the event, its issue or link id and its timestamp).
 * `jira:issue_updated` is refined by its changelog: a move to Done (or into the done status category)
 * is an outcome about the issue key, a move to Blocked or an impediment flag is an exception.
 */
import { at, defineSource, type Event, need, textAt } from "./kit/define-source.ts";
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
const key = (ev: Event) => need(textAt(ev, "issue.key"), "issue.key");
const summary = (ev: Event) => field(ev, "summary") ?? "";
const actor = (ev: Event) => textAt(ev, "user.displayName") ?? "?";
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

const move = (change: Change | undefined) =>
  change ? `from ${textAt(change, "fromString") ?? "?"} to ${textAt(change, "toString") ?? "?"}` : "";

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
      content: (ev) => {
        const assignee = field(ev, "assignee.displayName");
        const url = browseUrl(ev);
        return `${field(ev, "issuetype.name") ?? "Issue"} ${key(ev)} "${summary(ev)}" was created in project ${field(ev, "project.name") ?? projectKey(ev) ?? "?"} by ${actor(ev)}${assignee ? `, assigned to ${assignee}` : ""}; priority ${field(ev, "priority.name") ?? "none"}, status ${field(ev, "status.name") ?? "?"}.${url ? ` ${url}` : ""}`;
      },
      tags: (ev) => ["issue", "created", field(ev, "issuetype.name"), projectKey(ev)],
      data: issueData,
      validFrom: (ev) => ev.timestamp,
    },
    "jira:issue_updated:done": {
      category: "outcome",
      content: (ev) => {
        const resolution = field(ev, "resolution.name");
        return `${key(ev)} "${summary(ev)}" moved ${move(changeOf(ev, "status"))} by ${actor(ev)}${resolution ? ` (resolution: ${resolution})` : ""}.`;
      },
      fields: (ev) => ({ result: NOT_DONE.test(field(ev, "resolution.name") ?? "") ? "neutral" : "success" }),
      tags: (ev) => ["issue", "done", projectKey(ev)],
      data: (ev) => ({ ...issueData(ev), resolution: field(ev, "resolution.name") }),
      object: key,
      validFrom: (ev) => ev.timestamp,
    },
    "jira:issue_updated:blocked": {
      category: "exception",
      content: (ev) => {
        const status = changeOf(ev, "status");
        const how =
          status && textAt(status, "toString")?.toLowerCase() === "blocked"
            ? `moved ${move(status)}`
            : "flagged as an impediment";
        const comment = textAt(ev, "comment.body");
        return `${key(ev)} "${summary(ev)}" is blocked: ${how} by ${actor(ev)}${comment ? `: ${clip(comment, 500)}` : "."}`;
      },
      fields: (ev) => ({
        severity: SEVERITY[field(ev, "priority.name")?.toLowerCase() ?? ""] ?? "medium",
        status: "open",
      }),
      tags: (ev) => ["issue", "blocked", projectKey(ev)],
      data: issueData,
      validFrom: (ev) => ev.timestamp,
    },
    issuelink_created: {
      category: "relationship",
      content: (ev) =>
        `Issue ${need(textAt(ev, "issueLink.sourceIssueId"), "issueLink.sourceIssueId")} ${predicateOf(ev)} issue ${need(textAt(ev, "issueLink.destinationIssueId"), "issueLink.destinationIssueId")} (link type ${textAt(ev, "issueLink.issueLinkType.name") ?? "?"}).`,
      fields: (ev) => ({
        subject: `issue ${textAt(ev, "issueLink.sourceIssueId")}`,
        predicate: predicateOf(ev),
        object: `issue ${textAt(ev, "issueLink.destinationIssueId")}`,
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
