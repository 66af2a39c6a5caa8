import { formatNumber, html, type SafeHtml } from "./html.ts";

/**
 * The tenant's connectors as their actors last stored their status (tenant health's `connectors`):
 * the CRM event stream, the mail watch and the messaging bridge. A connector that never ran for
 * the tenant has no status and is shown as such.
 */
const CONNECTORS = [
  { key: "crm", name: "CRM event stream" },
  { key: "mail", name: "Mail watch" },
  { key: "messaging", name: "Messaging bridge" },
] as const;

/** The fields worth a glance, in this order, when a status has them (all are escaped). */
const FIELDS: Array<[string, string]> = [
  ["transport", "transport"],
  ["email", "mailbox"],
  ["connected_at", "connected"],
  ["last_event_at", "last event"],
  ["last_expanded_at", "last expanded"],
  ["events", "events"],
  ["reconnects", "reconnects"],
  ["pending_retries", "waiting to retry"],
  ["expiration", "watch expires"],
  ["next_retry_at", "next retry"],
  ["last_error_at", "last error at"],
];

export function connectorsSection(statuses: Record<string, unknown>): SafeHtml {
  const known = new Set<string>(CONNECTORS.map((c) => c.key));
  const others = Object.keys(statuses)
    .filter((key) => !known.has(key))
    .map((key) => ({ key, name: key }));
  const rows = [...CONNECTORS, ...others].map(({ key, name }) => {
    const status = statuses[key] as Record<string, unknown> | undefined;
    if (!status || typeof status !== "object")
      return html`<tr data-connector="${key}"><td>${name}</td><td class="muted">not running for this tenant</td><td></td><td></td></tr>`;
    const state = String(status.state ?? "unknown");
    const details = FIELDS.filter(([field]) => status[field] !== undefined && status[field] !== null).map(
      ([field, label]) => html`<span>${label}: ${shown(status[field])}</span> `,
    );
    const error = typeof status.last_error === "string" ? status.last_error : "";
    return html`<tr data-connector="${key}"><td>${name}</td><td class="state-${state}"><b>${state}</b></td><td>${details}</td><td class="error">${error}</td></tr>`;
  });
  return html`<section id="connectors"><h2>Connector health</h2><table>
<thead><tr><th>connector</th><th>state</th><th>details</th><th>last error</th></tr></thead>
<tbody>${rows}</tbody></table></section>`;
}

function shown(value: unknown): string {
  if (typeof value === "number") return formatNumber(value);
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}
