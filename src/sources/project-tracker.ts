/**
 * `project_tracker` (modelled on Linear): `Linear-Signature` = hex HMAC-SHA256 of the raw body, keyed
 * with the webhook's signing secret; the body's `webhookTimestamp` (epoch ms, covered by the
 * signature) must lie within 60 s. `Linear-Delivery` dedupes (else `webhookId` + `webhookTimestamp`).
 * Types are `{type}.{action}`; an issue update into a completed workflow state is `Issue.completed`,
 * an outcome about the issue id.
 */
import { at, defineSource, type Event, need, textAt } from "./kit/define-source.ts";
import { excerpt } from "./kit/draft.ts";
import { isRecord, webhookTimestamp } from "./kit/request.ts";
import { hmacScheme, payloads, signatures } from "./kit/signature.ts";

/** Completed now, not merely edited while completed: the update moved the state (or set completedAt). */
function completedNow(ev: Event): boolean {
  const from = at(ev, "updatedFrom");
  return (
    textAt(ev, "data.state.type") === "completed" &&
    isRecord(from) &&
    (Object.hasOwn(from, "stateId") || Object.hasOwn(from, "completedAt"))
  );
}

function typeOf(ev: Event): string | undefined {
  const type = textAt(ev, "type");
  const action = textAt(ev, "action");
  if (!type) return undefined;
  if (type === "Issue" && action === "update" && completedNow(ev)) return "Issue.completed";
  return action ? `${type}.${action}` : type;
}

function idOf(ev: Event, req: { headers: Headers }): string | undefined {
  const delivery = req.headers.get("linear-delivery")?.trim();
  if (delivery) return delivery;
  const hook = textAt(ev, "webhookId");
  const stamp = textAt(ev, "webhookTimestamp");
  return hook && stamp ? `${hook}:${stamp}` : undefined;
}

const issue = (ev: Event, path: string) => textAt(ev, `data.${path}`);
const labels = (list: unknown) =>
  Array.isArray(list) ? list.map((label) => textAt(label, "name")).filter(Boolean) : [];
const title = (identifier: string, name: string | undefined) => `${identifier}${name ? ` "${name}"` : ""}`;

/** The issue's attributes worth keeping, from `data` (issue events) or `issueData` (SLA events). */
const issueData = (ev: Event, root: "data" | "issueData") => ({
  issue_id: textAt(ev, `${root}.id`),
  identifier: textAt(ev, `${root}.identifier`),
  title: textAt(ev, `${root}.title`),
  team: textAt(ev, `${root}.team.key`),
  state: textAt(ev, `${root}.state.name`),
  priority: textAt(ev, `${root}.priorityLabel`),
  assignee: textAt(ev, `${root}.assignee.name`),
  project: textAt(ev, `${root}.project.name`),
  labels: labels(at(ev, `${root}.labels`)),
  url: textAt(ev, "url") ?? textAt(ev, `${root}.url`),
  by: textAt(ev, "actor.name"),
});

export const projectTrackerSource = defineSource({
  id: "project_tracker",
  secrets: ["PROJECT_TRACKER_WEBHOOK_SECRET"],
  verify: hmacScheme({
    secret: "PROJECT_TRACKER_WEBHOOK_SECRET",
    hash: "sha256",
    encoding: "hex",
    signatures: signatures.header("linear-signature"),
    payload: payloads.body,
    timestamp: { unit: "ms", toleranceMs: 60_000, read: webhookTimestamp },
  }),
  eventId: idOf,
  eventType: typeOf,
  mappings: {
    "Issue.create": {
      category: "workflow",
      content: (ev) => {
        const identifier = need(issue(ev, "identifier"), "data.identifier");
        const assignee = issue(ev, "assignee.name");
        const description = excerpt(at(ev, "data.description"));
        return `${title(identifier, issue(ev, "title"))} was created in team ${issue(ev, "team.name") ?? "?"} by ${textAt(ev, "actor.name") ?? "?"}${assignee ? `, assigned to ${assignee}` : ""}; priority ${issue(ev, "priorityLabel") ?? "none"}, state ${issue(ev, "state.name") ?? "?"}: ${textAt(ev, "url") ?? ""}${description ? `\n\n${description}` : ""}`;
      },
      tags: (ev) => ["issue", "created", issue(ev, "team.key"), ...labels(at(ev, "data.labels"))],
      data: (ev) => issueData(ev, "data"),
      validFrom: (ev) => issue(ev, "createdAt") ?? ev.createdAt,
    },
    "Issue.completed": {
      category: "outcome",
      content: (ev) =>
        `${title(issue(ev, "identifier") ?? need(issue(ev, "id"), "data.id"), issue(ev, "title"))} was completed (moved to ${issue(ev, "state.name") ?? "a completed state"}) by ${textAt(ev, "actor.name") ?? "?"}: ${textAt(ev, "url") ?? ""}`.trim(),
      fields: () => ({ result: "success" }),
      tags: (ev) => ["issue", "completed", issue(ev, "team.key")],
      data: (ev) => ({ ...issueData(ev, "data"), completed_at: issue(ev, "completedAt") }),
      object: (ev) => need(issue(ev, "id"), "data.id"),
      validFrom: (ev) => issue(ev, "completedAt") ?? ev.createdAt,
    },
    "IssueSLA.breached": {
      category: "exception",
      content: (ev) => {
        const identifier = need(textAt(ev, "issueData.identifier"), "issueData.identifier");
        const due = textAt(ev, "issueData.slaBreachesAt");
        const assignee = textAt(ev, "issueData.assignee.name");
        return `SLA breached on ${title(identifier, textAt(ev, "issueData.title"))} (priority ${textAt(ev, "issueData.priorityLabel") ?? "none"}${due ? `, due ${due}` : ""}${assignee ? `, assigned to ${assignee}` : ""}): ${textAt(ev, "url") ?? textAt(ev, "issueData.url") ?? ""}`.trim();
      },
      // Linear's priority 1 is Urgent.
      fields: (ev) => ({
        severity: at(ev, "issueData.priority") === 1 ? "critical" : "high",
        status: "open",
      }),
      tags: (ev) => ["sla", "breached", textAt(ev, "issueData.team.key")],
      data: (ev) => ({
        ...issueData(ev, "issueData"),
        sla_type: textAt(ev, "issueData.slaType"),
        sla_started_at: textAt(ev, "issueData.slaStartedAt"),
        sla_breaches_at: textAt(ev, "issueData.slaBreachesAt"),
      }),
      validFrom: (ev) => ev.createdAt,
    },
    "Comment.create": {
      category: "fact",
      content: (ev) => {
        const body = need(excerpt(at(ev, "data.body"), 2000), "data.body");
        const on = issue(ev, "issue.identifier");
        return `${issue(ev, "user.name") ?? textAt(ev, "actor.name") ?? "Someone"} commented${on ? ` on ${title(on, issue(ev, "issue.title"))}` : ""}: ${body}`;
      },
      tags: (ev) => ["comment", issue(ev, "issue.team.key")],
      data: (ev) => ({
        comment_id: issue(ev, "id"),
        issue_id: issue(ev, "issueId") ?? issue(ev, "issue.id"),
        identifier: issue(ev, "issue.identifier"),
        author: issue(ev, "user.name"),
        parent_comment: issue(ev, "parentId"),
        url: textAt(ev, "url"),
      }),
      validFrom: (ev) => issue(ev, "createdAt") ?? ev.createdAt,
    },
  },
});
