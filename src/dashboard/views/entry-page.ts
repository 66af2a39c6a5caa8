/**
 * One entry's page: its fields, origin and trust, validity (valid time and transaction time), its
 * versions and history, and what it supersedes, corrects or resolves and what replaced it, each a
 * link to that entry's page. Every value is escaped (html.ts); the source's URL is shown, not linked.
 */
import type { Category } from "../../models/category.ts";
import type { Entry } from "../../models/entry.ts";
import type { EntryHistory, HistoryEvent } from "../../models/history.ts";
import { originLabel } from "../../provenance/origin-label.ts";
import { html, type SafeHtml } from "./html.ts";
import { page } from "./page.ts";
import { DASHBOARD_PATH, entryPagePath, SIGN_OUT_PATH, tenantPagePath } from "./paths.ts";

export interface EntryPageModel {
  version: string;
  generatedAt: string;
  tenant: { tenant_id: string; name: string };
  entry: Entry;
  history: EntryHistory;
}

/** The typed fields a category may carry, in the order the page lists them. */
const TYPED = [
  "status",
  "rationale",
  "options",
  "chosen",
  "amount",
  "currency",
  "stage",
  "severity",
  "steps",
  "subject",
  "predicate",
  "object",
  "scope_subject",
  "result",
] as const;

/** The category of the entry a history event names: an outcome resolves a decision; the rest are of the same kind. */
function relatedCategory(event: HistoryEvent["type"], own: Category): Category {
  if (event === "resolves") return "decision";
  if (event === "resolved_by") return "outcome";
  return own;
}

/** A link to another entry's page of this tenant. */
export function entryLink(tenantId: string, category: string, id: string): SafeHtml {
  return html`<a href="${entryPagePath(tenantId, category, id)}" data-entry-link="${id}"><code>${id}</code></a>`;
}

export function entryPage(m: EntryPageModel): string {
  const e = m.entry;
  const tid = m.tenant.tenant_id;
  const link = (category: string, id: string) => entryLink(tid, category, id);
  return page(
    `${e.category} ${e.id} · ${m.tenant.name} · typed-memory runtime`,
    html`<header><h1><a href="${DASHBOARD_PATH}">Typed-memory runtime</a> · entry</h1>
<nav><span class="muted">v${m.version} · ${m.generatedAt}</span> · <a href="${SIGN_OUT_PATH}">Sign out</a></nav></header>
<main>
<section id="entry"><h2>${e.category} <code>${e.id}</code></h2>
<p><a href="${tenantPagePath(tid)}#entries">← ${m.tenant.name}</a></p>
<p class="content" data-field="content">${e.content}</p>
${fieldsTable(e, link)}</section>
${validitySection(e)}
${linksSection(m, link)}
${versionsSection(m, link)}
${eventsSection(m, link)}
</main>`,
  );
}

type Link = (category: string, id: string) => SafeHtml;

function row(label: string, value: SafeHtml | string | undefined | null): SafeHtml | string {
  if (value === undefined || value === null || value === "") return "";
  return html`<tr><th>${label}</th><td>${value}</td></tr>`;
}

function fieldsTable(e: Entry, link: Link): SafeHtml {
  const typed = TYPED.map((k) => {
    const v = e[k];
    if (v === undefined) return "";
    return row(k, Array.isArray(v) ? v.join(" · ") : String(v));
  });
  const source = e.source
    ? [e.source.system, e.source.event_type, e.source.event_id, e.source.url].filter(Boolean).join(" · ")
    : undefined;
  return html`<table class="fields"><tbody>
${e.tags?.length ? row("tags", html`${e.tags.map((tag) => html`<span class="tag">${tag}</span> `)}`) : ""}
${typed}
${e.decision_id ? row("decision", link("decision", e.decision_id)) : ""}
${row("trust", html`<b data-trust="${e.trust}">${e.trust}</b>`)}
${row("origin", originLabel(e.origin))}
${row("source", source)}
${row("agent", e.agent_id)}
${row("session", e.session_id)}
${row("created by", e.created_by)}
${e.data ? row("data", html`<pre>${JSON.stringify(e.data, null, 2)}</pre>`) : ""}
</tbody></table>`;
}

function validitySection(e: Entry): SafeHtml {
  return html`<section id="validity"><h2>Validity</h2><table class="fields"><tbody>
<tr><th>valid from</th><td>${e.valid_from}</td></tr>
<tr><th>valid to</th><td>${e.valid_to ?? "open-ended"}</td></tr>
<tr><th>recorded at</th><td>${e.recorded_at}</td></tr>
<tr><th>superseded at</th><td>${e.invalidated_at ?? "not superseded"}</td></tr>
<tr><th>expired at</th><td>${e.expired_at ?? "not retracted or corrected"}</td></tr>
</tbody></table></section>`;
}

/** What it supersedes, corrects or resolves, and what superseded, corrected or resolved it. */
function linksSection(m: EntryPageModel, link: Link): SafeHtml {
  const e = m.entry;
  const related = m.history.events.filter((ev) => ev.related !== undefined && ev.type !== "created");
  const items = related.map(
    (ev) =>
      html`<li data-relation="${ev.type}">${ev.type.replace("_", " ")} ${link(relatedCategory(ev.type, e.category), ev.related!)}</li>`,
  );
  return html`<section id="links"><h2>Supersedes, resolves, replaced by</h2>${
    items.length > 0 ? html`<ul>${items}</ul>` : html`<p class="muted">Linked to no other entry.</p>`
  }</section>`;
}

function versionsSection(m: EntryPageModel, link: Link): SafeHtml {
  const rows = m.history.versions.map(
    (v) =>
      html`<tr data-version="${v.id}"${v.id === m.entry.id ? html` class="current"` : ""}><td>${
        v.id === m.entry.id ? html`<code>${v.id}</code> (this)` : link(m.entry.category, v.id)
      }</td><td>${v.recorded_at}</td><td>${v.valid_from ?? "erased"}</td><td>${v.valid_to ?? "open"}</td><td>${v.expired_at ?? ""}</td></tr>`,
  );
  return html`<section id="versions"><h2>Versions (oldest first)</h2><table>
<thead><tr><th>id</th><th>recorded</th><th>valid from</th><th>valid to</th><th>expired</th></tr></thead>
<tbody>${rows}</tbody></table></section>`;
}

function eventsSection(m: EntryPageModel, link: Link): SafeHtml {
  const rows = m.history.events.map(
    (ev) =>
      html`<tr><td>${ev.at}</td><td>${ev.type}</td><td>${ev.by}</td><td>${
        ev.related ? link(relatedCategory(ev.type, m.entry.category), ev.related) : ""
      }</td></tr>`,
  );
  return html`<section id="history"><h2>History</h2><table>
<thead><tr><th>at</th><th>event</th><th>by</th><th>other entry</th></tr></thead>
<tbody>${rows}</tbody></table></section>`;
}
