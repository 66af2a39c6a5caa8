import type { EmbedderState } from "../../embedding/embed-scheduler.ts";
import { CATEGORIES, type Category } from "../../models/category.ts";
import type { DeadLetter } from "../../models/dead-letter.ts";
import type { Denial } from "../../models/denial.ts";
import type { Entry } from "../../models/entry.ts";
import type { SourceView } from "../../models/webhook-operations.ts";
import { originLabel } from "../../provenance/origin-label.ts";
import { ENTRY_STATES, type EntryState } from "../entry-state.ts";
import { connectorsSection } from "./connector-health.ts";
import { entryLink } from "./entry-page.ts";
import { formatNumber, html, type SafeHtml } from "./html.ts";
import { deleteTenantForm, mintTokenForm } from "./operator-forms.ts";
import { page } from "./page.ts";
import {
  discardFormPath,
  DASHBOARD_PATH as OVERVIEW_PATH,
  replayFormPath,
  SIGN_OUT_PATH,
  sourceFormPath,
  statusFormPath,
  tenantPagePath,
} from "./paths.ts";
import { postForm } from "./post-form.ts";
import { searchBox } from "./search-page.ts";
import { sourcesSection } from "./sources-section.ts";
import { writesChart } from "./writes-chart.ts";

/** Shown at most, each: the page stays one screen of each kind on a phone. */
export const RECENT_ENTRIES = 20;
export const DEAD_LETTERS_SHOWN = 20;
export const DENIALS_SHOWN = 20;
/** An entry's content is cut here on the page (the API has all of it). */
const CONTENT_SHOWN = 280;

/** Everything one tenant's page shows; the route gathers it, this module only renders it. */
export interface TenantPageModel {
  version: string;
  generatedAt: string;
  tenant: { tenant_id: string; name: string; status: string; created_at: string };
  /** The names of the tenant's role library, the mint form's choices. */
  roles: string[];
  /** The form token of the operator's session (src/http/dashboard-form.ts); every form carries it. */
  formToken: string | undefined;
  /** The status the last suspend or resume button set, from the redirect that came back here. */
  statusSet?: "suspended" | "active";
  /** What the last replay did, from the redirect that came back here. */
  replayed?: { event: string; status: "replayed" | "dead" };
  /** The event whose dead letter the last discard button discarded. */
  discarded?: string;
  figures: TenantFigures;
  /** UTC days, oldest first, and per category the entries written on each. */
  days: string[];
  writesPerDay: Record<Category, number[]>;
  /** The newest entries written: all, or the current ones and how many of the rest, by state. */
  recentEntries: {
    showAll: boolean;
    rows: Array<{ entry: Entry; state: EntryState }>;
    hidden: Partial<Record<EntryState, number>>;
  };
  deadLetters: DeadLetter[];
  /** The connectors' stored statuses by name (`crm`, `mail`, `messaging`), as tenant health has them. */
  connectors: Record<string, unknown>;
  denials: Denial[];
  /** Each source's status, held events and dead letters (docs/webhook-operations.md). */
  sources: SourceView[];
  /** What the last pause or resume button did, from the redirect that came back here. */
  sourceChanged?: { source: string; status: "active" | "paused" };
}

export interface TenantFigures {
  entries: Record<Category, number>;
  /** Dead letters not replayed, and all kept (replayed ones too). */
  openDeadLetters: number;
  deadLettersKept: number;
  vault: { present: boolean; entries: number };
  /** `pending`: vectors not in the ANN graph yet; `pending_vectors`: the embedder's backlog. */
  index: { vectors: number; pending: number; pending_vectors: number; embedder?: EmbedderState };
}

export function tenantPage(m: TenantPageModel): string {
  const t = m.tenant;
  const sections: Array<SafeHtml | string> = [
    replayNotice(m.replayed),
    discardNotice(m.discarded),
    html`<section id="search"><h2>Search memory</h2>${searchBox(t.tenant_id)}</section>`,
    figuresSection(m.figures),
    html`<section id="writes"><h2>Writes per day (last ${m.days.length} days)</h2>${writesChart(m.days, m.writesPerDay)}</section>`,
    entriesSection(t.tenant_id, m.recentEntries),
    deadLettersSection(m, m.deadLetters),
    sourcesSection({
      action: sourceFormPath(m.tenant.tenant_id),
      formToken: m.formToken,
      sources: m.sources,
      changed: m.sourceChanged,
    }),
    connectorsSection(m.connectors),
    denialsSection(m.denials),
  ];
  return page(
    `${t.name} · Dashboard · typed-memory runtime`,
    html`<header><h1><a href="${OVERVIEW_PATH}">Typed-memory runtime</a> · tenant</h1>
<nav><span class="muted">v${m.version} · ${m.generatedAt}</span> · <a href="${SIGN_OUT_PATH}">Sign out</a></nav></header>
<main>
<section id="tenant"><h2>${t.name}</h2>
<p><code>${t.tenant_id}</code> · <span class="status-${t.status}">${t.status}</span> · created ${t.created_at}</p>
${statusButton(m)}
<p><a href="${OVERVIEW_PATH}">← All tenants</a></p></section>
${sections}
<section id="tokens"><h2>Mint a token</h2>${mintTokenForm(t.tenant_id, m.roles, m.formToken)}</section>
<section id="delete"><h2>Delete tenant</h2>${deleteTenantForm(t, m.formToken)}</section>
</main>`,
  );
}

/** Suspend (a suspended tenant's tokens are refused) or resume, as the admin API does, audited. */
function statusButton(m: TenantPageModel): SafeHtml {
  const t = m.tenant;
  const next = t.status === "suspended" ? "active" : "suspended";
  const notice =
    m.statusSet === undefined
      ? ""
      : html`<p class="notice" role="status">Tenant ${m.statusSet === "suspended" ? "suspended" : "resumed"}.</p>`;
  return html`${notice}<p>${postForm(statusFormPath(t.tenant_id), { status: next }, next === "suspended" ? "Suspend tenant" : "Resume tenant", m.formToken)}</p>`;
}

function discardNotice(event: string | undefined): SafeHtml | string {
  if (event === undefined) return "";
  return html`<p class="notice" role="status">Event <code>${event}</code> discarded: it stays listed and is never replayed again.</p>`;
}

function replayNotice(replayed: TenantPageModel["replayed"]): SafeHtml | string {
  if (!replayed) return "";
  return replayed.status === "replayed"
    ? html`<p class="notice" role="status">Event <code>${replayed.event}</code> replayed: its entries are written.</p>`
    : html`<p class="notice error" role="status">Event <code>${replayed.event}</code> is still dead: its new error is below.</p>`;
}

function figuresSection(f: TenantFigures): SafeHtml {
  const card = (label: string, value: number) =>
    html`<div class="card"><b>${formatNumber(value)}</b>${label}</div>`;
  const total = CATEGORIES.reduce((sum, c) => sum + f.entries[c], 0);
  const embedder = f.index.embedder;
  return html`<section id="figures"><h2>Figures</h2>
<div class="cards">${card("entries", total)}${card("open dead letters", f.openDeadLetters)}${card("vectors indexed", f.index.vectors)}${card("embedding backlog", f.index.pending_vectors)}</div>
<table><thead><tr>${CATEGORIES.map((c) => html`<th class="n">${c}</th>`)}</tr></thead>
<tbody><tr data-figures="entries">${CATEGORIES.map((c) => html`<td class="n">${formatNumber(f.entries[c])}</td>`)}</tr></tbody></table>
<p class="muted">Vault ${f.vault.present ? "open" : "not created yet"} · vectors waiting for the graph (searched exactly meanwhile): ${formatNumber(f.index.pending)} · dead letters kept, replayed ones included: ${formatNumber(f.deadLettersKept)}${
    embedder
      ? html` · embedder <b>${embedder.kind}</b>: ${embedder.state}, ${formatNumber(embedder.embedded)} made since start${
          embedder.last_error ? html`, last error ${embedder.last_error}` : ""
        }`
      : ""
  }</p></section>`;
}

function entriesSection(tenantId: string, recent: TenantPageModel["recentEntries"]): SafeHtml {
  const rows = recent.rows.map(
    ({
      entry: e,
      state,
    }) => html`<tr data-entry="${e.id}" data-state="${state}"><td>${e.recorded_at}</td><td>${e.category}</td>
<td class="content">${clip(e.content)}${(e.tags ?? []).map((tag) => html` <span class="tag">${tag}</span>`)}${
      state === "current" ? "" : html` <span class="tag state">${state}</span>`
    }</td>
<td>${entryLink(tenantId, e.category, e.id)}<br><span class="muted">${e.agent_id ?? e.created_by ?? ""}</span></td>
<td data-trust="${e.trust}"><b>${e.trust}</b><br><span class="muted origin">${originLabel(e.origin)}</span></td></tr>`,
  );
  return html`<section id="entries"><h2>Recent entries (the newest ${RECENT_ENTRIES} written)</h2>
<p class="muted" data-entries-shown>${shownLine(tenantId, recent)}</p><table>
<thead><tr><th>recorded</th><th>category</th><th>content</th><th>id · by</th><th>trust · origin</th></tr></thead>
<tbody>${rows.length > 0 ? rows : html`<tr><td colspan="5" class="muted">No entries yet.</td></tr>`}</tbody></table></section>`;
}

/** What the list leaves out, and the toggle: "13 shown; 2 superseded hidden — show all". */
function shownLine(tenantId: string, recent: TenantPageModel["recentEntries"]): SafeHtml {
  const here = tenantPagePath(tenantId);
  const shown = html`${formatNumber(recent.rows.length)} shown`;
  if (recent.showAll) return html`${shown}, current or not · <a href="${here}#entries">show current only</a>`;
  const hidden = ENTRY_STATES.filter((s) => recent.hidden[s]).map(
    (s) => html`${formatNumber(recent.hidden[s]!)} ${s}`,
  );
  if (hidden.length === 0) return html`${shown}; none hidden`;
  return html`${shown}; ${hidden.map((h, i) => html`${i > 0 ? ", " : ""}${h}`)} hidden — <a href="${here}?show=all#entries">show all</a>`;
}

function deadLettersSection(m: TenantPageModel, letters: DeadLetter[]): SafeHtml {
  const id = m.tenant.tenant_id;
  const buttons = (d: DeadLetter) => {
    const fields = { event_id: d.event_id, source: d.source };
    return html`${postForm(replayFormPath(id), fields, "Replay", m.formToken)} ${postForm(discardFormPath(id), fields, "Discard", m.formToken)}`;
  };
  const rows = letters.map(
    (
      d,
    ) => html`<tr data-dead-letter="${d.event_id}" class="status-${d.status}"><td>${d.received_at}</td><td>${d.source}</td>
<td><code>${d.event_id}</code><br><span class="muted">${d.event_type}</span></td><td class="n">${d.attempts}</td>
<td>${outcomeOf(d)}</td>
<td>${d.status === "dead" ? buttons(d) : ""}</td></tr>`,
  );
  return html`<section id="dead-letters"><h2>Dead letters (${formatNumber(m.figures.openDeadLetters)} open; newest ${DEAD_LETTERS_SHOWN})</h2><table>
<thead><tr><th>received</th><th>source</th><th>event</th><th class="n">attempts</th><th>error or outcome</th><th></th></tr></thead>
<tbody>${rows.length > 0 ? rows : html`<tr><td colspan="6" class="muted">No dead letters.</td></tr>`}</tbody></table>
<p class="muted">Replay maps the stored event again (no second signature check); Discard gives up on one that can never succeed (kept, never replayed again). Both are recorded in the admin audit log.</p></section>`;
}

/** A dead letter's error while dead, else what became of it. */
function outcomeOf(d: DeadLetter): SafeHtml | string {
  if (d.status === "dead") return d.last_error;
  if (d.status === "discarded")
    return html`discarded ${d.discarded_at ?? ""} by ${d.discarded_by ?? ""}: ${d.last_error}`;
  return html`replayed ${d.replayed_at ?? ""}: ${formatNumber(d.entries?.length ?? 0)} entries`;
}

function denialsSection(denials: Denial[]): SafeHtml {
  const rows = denials.map(
    (d) =>
      html`<tr><td>${d.at}</td><td>${d.sub}</td><td><code>${d.method} ${d.path}</code></td><td>${d.permission}</td><td>${d.reason}</td></tr>`,
  );
  return html`<section id="denials"><h2>Recent denials</h2><table>
<thead><tr><th>at</th><th>sub</th><th>request</th><th>permission</th><th>reason</th></tr></thead>
<tbody>${rows.length > 0 ? rows : html`<tr><td colspan="5" class="muted">No denials.</td></tr>`}</tbody></table></section>`;
}

function clip(text: string): string {
  return text.length <= CONTENT_SHOWN ? text : `${text.slice(0, CONTENT_SHOWN - 1)}…`;
}
