import { createHmac, randomInt, randomUUID } from "node:crypto";
import type { PlatformSender, Signed } from "./sender.ts";

/**
 * PagerDuty's v3 signing: `X-PagerDuty-Signature: v1=<hex HMAC-SHA256 of the body>`, keyed with the
 * subscription's secret; one `v1=` per active secret, comma-separated.
 */
export const INCIDENTS_SECRET = "pd_whsec_Jr6rX0vKcC9m2XyNw8TqLs4Hb1Ue7Zo5";
const OLD_SECRET = "pd_whsec_the_secret_before_rotation";

export function pagerdutySignature(secret: string, body: string): string {
  return `v1=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

function headers(signature: string): Record<string, string> {
  return {
    "content-type": "application/json; charset=utf-8",
    "user-agent": "PagerDuty-Webhook/V3.0",
    "x-webhook-id": randomUUID(),
    "x-webhook-subscription": "PY1OQIK",
    "x-pagerduty-signature": signature,
  };
}

export const incidentsSender: PlatformSender = {
  source: "incidents",
  secrets: { INCIDENTS_WEBHOOK_SECRET: INCIDENTS_SECRET },
  signsBody: true,
  sign: (body): Signed => ({ headers: headers(pagerdutySignature(INCIDENTS_SECRET, body)), body }),
  signRotated: (body): Signed => ({
    headers: headers(`${pagerdutySignature(OLD_SECRET, body)},${pagerdutySignature(INCIDENTS_SECRET, body)}`),
    body,
  }),
};

const user = (id: string, name: string) => ({
  html_url: `https://acme.pagerduty.com/users/${id}`,
  id,
  self: `https://api.pagerduty.com/users/${id}`,
  summary: name,
  type: "user_reference",
});

/** An incident as the `data` of incident events carries it. */
export function incident(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const id =
    typeof overrides.id === "string" ? overrides.id : `Q${randomInt(1e9, 9e9).toString(36).toUpperCase()}`;
  return {
    id,
    type: "incident",
    self: `https://api.pagerduty.com/incidents/${id}`,
    html_url: `https://acme.pagerduty.com/incidents/${id}`,
    number: 1234,
    status: "triggered",
    incident_key: "baf7cf21b1da41b4b0221008339ff357",
    created_at: "2026-11-21T09:55:00Z",
    title: "The server is on fire.",
    service: {
      html_url: "https://acme.pagerduty.com/service-directory/PIJ90N7",
      id: "PIJ90N7",
      self: "https://api.pagerduty.com/services/PIJ90N7",
      summary: "My Mail Service",
      type: "service_reference",
    },
    assignees: [user("PXPGF42", "Earline Greenholt")],
    escalation_policy: {
      html_url: "https://acme.pagerduty.com/escalation_policies/PUS0KTE",
      id: "PUS0KTE",
      self: "https://api.pagerduty.com/escalation_policies/PUS0KTE",
      summary: "Default",
      type: "escalation_policy_reference",
    },
    teams: [{ id: "PFCVPS0", summary: "Engineering", type: "team_reference" }],
    priority: { id: "PSO75BM", summary: "P1", type: "priority_reference" },
    urgency: "high",
    conference_bridge: null,
    resolve_reason: null,
    ...overrides,
  };
}

/** A v3 webhook body: `{event: {id, event_type, resource_type, occurred_at, agent, client, data}}`. */
export function pagerdutyEvent(
  eventType: string,
  data: Record<string, unknown> = incident(),
  agent: Record<string, unknown> | null = user("PXPGF42", "Earline Greenholt"),
): string {
  return JSON.stringify({
    event: {
      id: `01${randomUUID().replaceAll("-", "").slice(0, 24).toUpperCase()}`,
      event_type: eventType,
      resource_type: eventType.split(".")[0],
      occurred_at: "2026-11-21T09:58:04.123Z",
      agent,
      client: null,
      data,
    },
  });
}

/** The test event a subscription sends on request. */
export function pageyPing(): string {
  return JSON.stringify({
    event: {
      id: "01BZYZWPQFY2LMMKVZMA9NUD5E",
      event_type: "pagey.ping",
      resource_type: "pagey",
      occurred_at: "2026-11-21T09:58:04.123Z",
      agent: null,
      client: null,
      data: { message: "Hello from your friend Pagey!", type: "ping" },
    },
  });
}
