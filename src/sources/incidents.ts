/**
 * `incidents` (modelled on PagerDuty v3 webhook subscriptions): `X-PagerDuty-Signature: v1=<hex>`,
 * the hex HMAC-SHA256 of the raw body keyed with the subscription's secret; several comma-separated
 * `v1=` while a secret rotates, any one valid. No timestamp. The body is `{event: {id, event_type,
 * resource_type, occurred_at, agent, data}}`; `event.id` dedupes. `pagey.ping` (a test sent from
 * the subscription) is answered after the signature check with nothing written. An escalation is a
 * decision about the incident; its resolution is the outcome resolving it.
 */
import { BadRequest } from "../errors/domain-errors.ts";
import { at, defineSource, type Event, jsonReply, NOTHING_WRITTEN, textAt } from "./kit/define-source.ts";
import { isRecord } from "./kit/request.ts";
import { hmacScheme, payloads, signatures } from "./kit/signature.ts";

const incident = (ev: Event, path: string) => textAt(ev, `data.${path}`);
/** The incident id, which every mapping requires. */
const incidentId = (ev: Event) => incident(ev, "id")!;
const REQUIRED = ["data.id"];
const names = (list: unknown) =>
  Array.isArray(list)
    ? list
        .slice(0, 20)
        .map((item) => textAt(item, "summary") ?? textAt(item, "id"))
        .filter((name): name is string => Boolean(name))
    : [];
const assignees = (ev: Event) => names(at(ev, "data.assignees"));
const agent = (ev: Event) => textAt(ev, "agent.summary") ?? textAt(ev, "agent.id");

/** `Incident #1234 "The server is on fire." on My Mail Service` (the id when there is no number). */
function describe(ev: Event): string {
  const id = incidentId(ev);
  const number = incident(ev, "number");
  const title = incident(ev, "title");
  const service = incident(ev, "service.summary");
  return `Incident ${number ? `#${number}` : id}${title ? ` "${title}"` : ""}${service ? ` on ${service}` : ""}`;
}
const by = (ev: Event) => (agent(ev) ? ` by ${agent(ev)}` : "");
const link = (ev: Event) => (incident(ev, "html_url") ? `: ${incident(ev, "html_url")}` : "");

/** High urgency pages someone now; a P1 among those is the worst there is. */
function severityOf(ev: Event): "critical" | "high" | "low" {
  if (incident(ev, "urgency") !== "high") return "low";
  return incident(ev, "priority.summary")?.toUpperCase() === "P1" ? "critical" : "high";
}

const incidentData = (ev: Event) => ({
  incident_id: incident(ev, "id"),
  number: at(ev, "data.number"),
  title: incident(ev, "title"),
  status: incident(ev, "status"),
  urgency: incident(ev, "urgency"),
  priority: incident(ev, "priority.summary"),
  service: incident(ev, "service.summary"),
  service_id: incident(ev, "service.id"),
  escalation_policy: incident(ev, "escalation_policy.summary"),
  assignees: assignees(ev),
  teams: names(at(ev, "data.teams")),
  incident_key: incident(ev, "incident_key"),
  url: incident(ev, "html_url"),
  agent: agent(ev),
  client: textAt(ev, "client.name"),
});
const incidentTags = (ev: Event) => [incident(ev, "urgency"), incident(ev, "service.summary")];

export const incidentsSource = defineSource({
  id: "incidents",
  secrets: ["INCIDENTS_WEBHOOK_SECRET"],
  verify: hmacScheme({
    secret: "INCIDENTS_WEBHOOK_SECRET",
    hash: "sha256",
    encoding: "hex",
    signatures: signatures.list("x-pagerduty-signature", ",", "v1="),
    payload: payloads.body,
  }),
  handshake: (_req, body) =>
    at(body, "event.event_type") === "pagey.ping" ? jsonReply(NOTHING_WRITTEN) : undefined,
  events: (body) => {
    const event = at(body, "event");
    if (!isRecord(event)) throw new BadRequest("a PagerDuty webhook body is {event: {...}}");
    return [event];
  },
  eventId: (ev) => ev.id,
  eventType: (ev) => ev.event_type,
  mappings: {
    "incident.triggered": {
      category: "exception",
      required: REQUIRED,
      content: (ev) => {
        const urgency = incident(ev, "urgency");
        const said = [urgency && `${urgency} urgency`, incident(ev, "priority.summary")].filter(Boolean);
        return `${describe(ev)} was triggered${said.length ? ` (${said.join(", ")})` : ""}${assignees(ev).length ? `, assigned to ${assignees(ev).join(", ")}` : ""}${link(ev)}`;
      },
      fields: (ev) => ({ severity: severityOf(ev), status: "open" }),
      tags: (ev) => ["incident", "triggered", ...incidentTags(ev)],
      data: incidentData,
      // Open until its incident is resolved (acknowledging or escalating does not end it).
      object: incidentId,
      validFrom: (ev) => ev.occurred_at,
    },
    "incident.acknowledged": {
      category: "workflow",
      required: REQUIRED,
      content: (ev) => `${describe(ev)} was acknowledged${by(ev)}${link(ev)}`,
      tags: (ev) => ["incident", "acknowledged", ...incidentTags(ev)],
      data: incidentData,
      object: incidentId,
      lifecycle: "state",
      validFrom: (ev) => ev.occurred_at,
    },
    "incident.escalated": {
      category: "decision",
      required: REQUIRED,
      content: (ev) =>
        `${describe(ev)} was escalated${assignees(ev).length ? ` to ${assignees(ev).join(", ")}` : ""}${incident(ev, "escalation_policy.summary") ? ` under escalation policy ${incident(ev, "escalation_policy.summary")}` : ""}${by(ev)}${link(ev)}`,
      fields: (ev) => ({
        stage: "escalated",
        chosen: assignees(ev).length ? assignees(ev).join(", ") : undefined,
      }),
      tags: (ev) => ["incident", "escalated", ...incidentTags(ev)],
      data: incidentData,
      object: incidentId,
      lifecycle: "state",
      validFrom: (ev) => ev.occurred_at,
    },
    "incident.resolved": {
      category: "outcome",
      required: REQUIRED,
      content: (ev) => {
        const merged = incident(ev, "resolve_reason.type") === "merge_resolve_reason";
        const into =
          incident(ev, "resolve_reason.incident.summary") ?? incident(ev, "resolve_reason.incident.id");
        const reason = merged ? `merged into ${into ?? "another incident"}` : undefined;
        return `${describe(ev)} was resolved${by(ev)}${reason ? ` (${reason})` : ""}${link(ev)}`;
      },
      fields: () => ({ result: "success" }),
      tags: (ev) => ["incident", "resolved", ...incidentTags(ev)],
      data: incidentData,
      object: incidentId,
      lifecycle: "close",
      validFrom: (ev) => ev.occurred_at,
    },
  },
});
