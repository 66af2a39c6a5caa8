/**
 * `project_tracker` (modelled on Linear): `Linear-Signature` = hex HMAC-SHA256 of the raw body, keyed
 * with the webhook's signing secret; the body's `webhookTimestamp` (epoch ms, covered by the
 * signature) must lie within 60 s. `Linear-Delivery` dedupes (else `webhookId` + `webhookTimestamp`).
 * Types are `{type}.{action}`; an issue update into a completed workflow state is `Issue.completed`,
 * an outcome about the issue id.
 */
import { at, defineSource, type Event, freeText, textAt } from "./kit/define-source.ts";
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
const by = (ev: Event) => (textAt(ev, "actor.name") ? ` by ${textAt(ev, "actor.name")}` : "");
const link = (url: string | undefined) => (url ? `: ${url}` : "");

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
      required: ["data.identifier"],
      content: (ev) => {
        const team = issue(ev, "team.name");
        const assignee = issue(ev, "assignee.name");
        const priority = issue(ev, "priorityLabel");
        const state = issue(ev, "state.name");
        const where = [priority && `priority ${priority}`, state && `state ${state}`].filter(Boolean);
        const description = excerpt(at(ev, "data.description"));
        return `${title(issue(ev, "identifier")!, issue(ev, "title"))} was created${team ? ` in team ${team}` : ""}${by(ev)}${assignee ? `, assigned to ${assignee}` : ""}${where.length ? `; ${where.join(", ")}` : ""}${link(textAt(ev, "url"))}${description ? `\n\n${description}` : ""}`;
      },
      tags: (ev) => ["issue", "created", issue(ev, "team.key"), ...labels(at(ev, "data.labels"))],
      data: (ev) => issueData(ev, "data"),
      object: (ev) => issue(ev, "id"),
      lifecycle: "state",
      validFrom: (ev) => issue(ev, "createdAt") ?? ev.createdAt,
    },
    "Issue.completed": {
      category: "outcome",
      // The issue id is what a decision about the issue is keyed by.
      required: ["data.id"],
      content: (ev) => {
        const state = issue(ev, "state.name");
        return `${title(issue(ev, "identifier") ?? issue(ev, "id")!, issue(ev, "title"))} was completed${state ? ` (moved to ${state})` : ""}${by(ev)}${link(textAt(ev, "url"))}`;
      },
      fields: () => ({ result: "success" }),
      tags: (ev) => ["issue", "completed", issue(ev, "team.key")],
      data: (ev) => ({ ...issueData(ev, "data"), completed_at: issue(ev, "completedAt") }),
      object: (ev) => issue(ev, "id")!,
      lifecycle: "close",
      validFrom: (ev) => issue(ev, "completedAt") ?? ev.createdAt,
    },
    "IssueSLA.breached": {
      category: "exception",
      required: ["issueData.identifier"],
      content: (ev) => {
        const priority = textAt(ev, "issueData.priorityLabel");
        const due = textAt(ev, "issueData.slaBreachesAt");
        const assignee = textAt(ev, "issueData.assignee.name");
        const about = [
          priority && `priority ${priority}`,
          due && `due ${due}`,
          assignee && `assigned to ${assignee}`,
        ];
        const said = about.filter(Boolean).join(", ");
        return `SLA breached on ${title(textAt(ev, "issueData.identifier")!, textAt(ev, "issueData.title"))}${said ? ` (${said})` : ""}${link(textAt(ev, "url") ?? textAt(ev, "issueData.url"))}`;
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
      // Of its issue: resolved when the issue is completed.
      object: (ev) => textAt(ev, "issueData.id"),
      validFrom: (ev) => ev.createdAt,
    },
    "Comment.create": {
      category: "fact",
      required: [freeText("data.body")],
      content: (ev) => {
        const body = excerpt(String(at(ev, "data.body")), 2000);
        const on = issue(ev, "issue.identifier");
        const author = issue(ev, "user.name") ?? textAt(ev, "actor.name");
        const where = on ? ` on ${title(on, issue(ev, "issue.title"))}` : "";
        return author ? `${author} commented${where}: ${body}` : `A comment was made${where}: ${body}`;
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
