import { createHmac, randomInt, randomUUID } from "node:crypto";
import type { PlatformSender, Signed, SignOptions } from "./sender.ts";

/**
 * Linear's signing: `Linear-Signature` = hex HMAC-SHA256 of the body, keyed with the webhook's
 * signing secret. The time is inside the body (`webhookTimestamp`, epoch ms, stamped when Linear
 * sends, so a retry is stamped afresh); `Linear-Delivery` names the delivery and a retry keeps it.
 */
export const PROJECT_TRACKER_SECRET = "lin_wh_Qx7Lk2Pm9Vb4Tc8Nf3Hd6Js1Rw5Yz0Ga";
const OLD_SECRET = "lin_wh_the_secret_before_rotation_0000000";

/** The start of the harness's manual clock: the time builders stamp, so a body posted as built is fresh. */
export const HARNESS_START = Date.UTC(2026, 10, 21, 10, 0, 0);

export function linearSignature(secret: string, body: string): string {
  return createHmac("sha256", secret).update(body).digest("hex");
}

/** The body as sent at `now`: its `webhookTimestamp` set to that instant. */
export function stamped(body: string, now: number): string {
  return body.replace(/"webhookTimestamp":\d+/, `"webhookTimestamp":${Math.floor(now)}`);
}

const deliveries = new Map<string, string>();

/** The `Linear-Delivery` of a body (as built, before stamping): fixed per body, as a retry keeps it. */
export function deliveryOf(body: string): string {
  if (!deliveries.has(body)) deliveries.set(body, randomUUID());
  return deliveries.get(body)!;
}

export function linearHeaders(body: string): Record<string, string> {
  const type = (JSON.parse(body) as { type?: string }).type;
  return {
    "content-type": "application/json; charset=utf-8",
    "user-agent": "Linear-Webhook",
    "linear-delivery": deliveryOf(body),
    ...(type ? { "linear-event": type } : {}),
  };
}

function sign(body: string, now: number, secrets: string[]): Signed {
  const sent = stamped(body, now);
  return {
    headers: {
      ...linearHeaders(body),
      "linear-signature": secrets.map((secret) => linearSignature(secret, sent)).join(", "),
    },
    body: sent,
  };
}

export const projectTrackerSender: PlatformSender = {
  source: "project_tracker",
  secrets: { PROJECT_TRACKER_WEBHOOK_SECRET: PROJECT_TRACKER_SECRET },
  signsBody: true,
  staleMs: 2 * 60_000,
  sign: (body: string, { now }: SignOptions) => sign(body, now, [PROJECT_TRACKER_SECRET]),
  // Hostile bytes carry no webhookTimestamp: Linear's check refuses them (401) whatever else they hold.
  signRaw: (body: Uint8Array) => ({
    headers: {
      "content-type": "application/json",
      "linear-delivery": randomUUID(),
      "linear-signature": createHmac("sha256", PROJECT_TRACKER_SECRET).update(body).digest("hex"),
    },
    body,
  }),
  // Linear sends one signature; a header sent twice arrives joined with ", ".
  signRotated: (body: string, { now }: SignOptions) => sign(body, now, [OLD_SECRET, PROJECT_TRACKER_SECRET]),
};

// ── real-shaped payloads ────────────────────────────────────────────────────────────────────

const ORGANIZATION = "5c3b1a2e-7d4f-4e8a-9b6c-0d1e2f3a4b5c";
const WEBHOOK = "a8e1d6c4-2b3f-4a5e-8c7d-9e0f1a2b3c4d";
const TEAM = { id: "72b2a2dc-6f4f-4423-9d34-24b5bd10634a", key: "ENG", name: "Engineering" };
const ada = { id: "1f2e3d4c-5b6a-4978-8a9b-0c1d2e3f4a5b", name: "Ada Lovelace", email: "ada@acme.test" };
const grace = { id: "2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d", name: "Grace Hopper", email: "grace@acme.test" };

const STATES = {
  todo: { id: "b1c2d3e4-0000-4000-8000-000000000001", name: "Todo", color: "#e2e2e2", type: "unstarted" },
  progress: {
    id: "b1c2d3e4-0000-4000-8000-000000000002",
    name: "In Progress",
    color: "#f2c94c",
    type: "started",
  },
  done: { id: "b1c2d3e4-0000-4000-8000-000000000003", name: "Done", color: "#5e6ad2", type: "completed" },
};

export interface IssueShape {
  id?: string;
  number?: number;
  title?: string;
  state?: keyof typeof STATES;
  priority?: number;
  extra?: Record<string, unknown>;
}

const PRIORITY = ["No priority", "Urgent", "High", "Medium", "Low"];

export function linearIssue(shape: IssueShape = {}) {
  const number = shape.number ?? randomInt(100, 9_999);
  const state = STATES[shape.state ?? "todo"];
  const priority = shape.priority ?? 2;
  return {
    id: shape.id ?? randomUUID(),
    createdAt: "2026-11-21T09:30:00.000Z",
    updatedAt: "2026-11-21T09:59:30.000Z",
    number,
    identifier: `ENG-${number}`,
    title: shape.title ?? "Webhook retries double-post invoices",
    description: "Retries after a timeout post the invoice twice; make the write idempotent.",
    priority,
    priorityLabel: PRIORITY[priority],
    boardOrder: 0,
    sortOrder: -1021.5,
    prioritySortOrder: 0,
    teamId: TEAM.id,
    team: TEAM,
    stateId: state.id,
    state,
    assigneeId: ada.id,
    assignee: ada,
    creatorId: grace.id,
    labelIds: ["c0ffee00-0000-4000-8000-00000000b0b0"],
    labels: [{ id: "c0ffee00-0000-4000-8000-00000000b0b0", name: "Bug", color: "#eb5757" }],
    subscriberIds: [grace.id],
    previousIdentifiers: [],
    reactionData: [],
    url: `https://linear.app/acme/issue/ENG-${number}/webhook-retries-double-post-invoices`,
    ...shape.extra,
  };
}

/** A data change webhook: `{action, actor, createdAt, data, type, updatedFrom?, url, organizationId, webhookTimestamp, webhookId}`. */
function entityEvent(
  type: string,
  action: string,
  data: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    action,
    actor: {
      id: grace.id,
      type: "user",
      name: grace.name,
      email: grace.email,
      url: "https://linear.app/acme/profiles/grace",
    },
    createdAt: "2026-11-21T09:59:59.000Z",
    data,
    type,
    url: data.url,
    ...extra,
    organizationId: ORGANIZATION,
    webhookTimestamp: HARNESS_START,
    webhookId: WEBHOOK,
  });
}

export function issueCreated(shape: IssueShape = {}): string {
  return entityEvent("Issue", "create", linearIssue(shape));
}

/** An issue moved into Done: `updatedFrom` holds the previous state and completion time. */
export function issueCompleted(shape: IssueShape = {}): string {
  const data = linearIssue({ ...shape, state: "done", extra: { completedAt: "2026-11-21T09:59:58.000Z" } });
  return entityEvent("Issue", "update", data, {
    updatedFrom: { updatedAt: "2026-11-21T09:40:00.000Z", stateId: STATES.progress.id, completedAt: null },
  });
}

/** An update of a done issue that does not move its state (a priority change). */
export function completedIssueReprioritised(shape: IssueShape = {}): string {
  const data = linearIssue({ ...shape, state: "done", priority: 1 });
  return entityEvent("Issue", "update", data, {
    updatedFrom: { updatedAt: "2026-11-21T09:40:00.000Z", priority: 2 },
  });
}

export function commentCreated(body = "Reproduced on staging: the retry reuses no idempotency key."): string {
  const issue = linearIssue({ number: 512 });
  const id = randomUUID();
  return entityEvent("Comment", "create", {
    id,
    createdAt: "2026-11-21T09:59:00.000Z",
    updatedAt: "2026-11-21T09:59:00.000Z",
    body,
    issueId: issue.id,
    issue: {
      id: issue.id,
      identifier: issue.identifier,
      title: issue.title,
      teamId: TEAM.id,
      team: TEAM,
      url: issue.url,
    },
    userId: ada.id,
    user: { id: ada.id, name: ada.name, email: ada.email, url: "https://linear.app/acme/profiles/ada" },
    reactionData: [],
    url: `${issue.url}#comment-${id.slice(0, 8)}`,
  });
}

/** Linear's IssueSLA webhook: `{type: "IssueSLA", action, createdAt, issueData, url, organizationId, webhookTimestamp, webhookId}`. */
export function slaEvent(action: "set" | "highRisk" | "breached", shape: IssueShape = {}): string {
  const issueData = linearIssue({
    ...shape,
    state: "progress",
    extra: {
      slaType: "all",
      slaStartedAt: "2026-11-20T10:00:00.000Z",
      slaMediumRiskAt: "2026-11-21T04:00:00.000Z",
      slaHighRiskAt: "2026-11-21T08:00:00.000Z",
      slaBreachesAt: "2026-11-21T10:00:00.000Z",
    },
  });
  return JSON.stringify({
    type: "IssueSLA",
    action,
    createdAt: "2026-11-21T10:00:00.000Z",
    issueData,
    url: issueData.url,
    organizationId: ORGANIZATION,
    webhookTimestamp: HARNESS_START,
    webhookId: WEBHOOK,
  });
}

export function projectUpdateCreated(): string {
  return entityEvent("ProjectUpdate", "create", {
    id: randomUUID(),
    body: "On track for the December release.",
    health: "onTrack",
    url: "https://linear.app/acme/project/payments-hardening/updates",
  });
}
