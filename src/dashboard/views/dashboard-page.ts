import type { DeliveryCounts } from "../../ingest/delivery-counters.ts";
import { CATEGORIES, type Category } from "../../models/category.ts";
import type { Denial } from "../../models/denial.ts";
import type { RevenueReport } from "../../models/revenue.ts";
import { type BarRow, stackedBars } from "./charts.ts";
import { formatNumber, html, type SafeHtml } from "./html.ts";
import { createTenantForm } from "./operator-forms.ts";
import { page } from "./page.ts";
import { SIGN_OUT_PATH, tenantPagePath } from "./paths.ts";
import { writesChart } from "./writes-chart.ts";

export interface TenantRow {
  tenant_id: string;
  name: string;
  status: string;
  entries: Record<Category, number>;
  /** Open dead letters: those not replayed. */
  dead_letters: number;
  revenue: RevenueReport;
  /** Why the tenant's figures could not be read for this page (the counts are then not shown). */
  unavailable?: string;
}

/** Everything the dashboard shows; the route gathers it, this module only renders it. */
export interface DashboardModel {
  version: string;
  generatedAt: string;
  /** The form token of the operator's session (src/http/dashboard-form.ts): the new-tenant form carries it. */
  formToken: string | undefined;
  /** The name of the tenant the last delete form erased, from the redirect that came back here. */
  deleted?: string;
  tenantCount: number;
  tenants: TenantRow[];
  /** Link to the next page of tenants, when there is one. */
  nextPage: string | null;
  /** UTC days, oldest first, and per category the entries written on each. */
  days: string[];
  writesPerDay: Record<Category, number[]>;
  deliveries: DeliveryCounts[];
  denials: Denial[];
}

export function dashboardPage(m: DashboardModel): string {
  return page(
    "Dashboard · typed-memory runtime",
    html`<header><h1>Typed-memory runtime · operator dashboard</h1>
<nav><span class="muted">v${m.version} · ${m.generatedAt}</span> · <a href="${SIGN_OUT_PATH}">Sign out</a></nav></header>
<main>
${m.deleted === undefined ? "" : html`<p class="notice" role="status">Tenant ${m.deleted} deleted: its vault, roles and audit records are erased.</p>`}
${summaryCards(m)}
${tenantsSection(m)}
<section id="new-tenant"><h2>New tenant</h2>${createTenantForm(m.formToken)}
<p class="muted">The next page shows the tenant's first <code>tenant_admin</code> token, once.</p></section>
<section id="writes"><h2>Writes per day (last ${m.days.length} days, tenants on this page)</h2>${writesChart(m.days, m.writesPerDay)}</section>
${revenueSection(m.tenants)}
${deliveriesSection(m.deliveries)}
${denialsSection(m.denials)}
</main>`,
  );
}

function summaryCards(m: DashboardModel): SafeHtml {
  const entries = m.tenants.reduce((sum, t) => sum + total(t.entries), 0);
  const deadLetters = m.tenants.reduce((sum, t) => sum + t.dead_letters, 0);
  const card = (label: string, value: number) =>
    html`<div class="card"><b>${formatNumber(value)}</b>${label}</div>`;
  return html`<div class="cards">${card("tenants", m.tenantCount)}${card("entries (this page)", entries)}${card("open dead letters (this page)", deadLetters)}${card("recent denials", m.denials.length)}</div><p></p>`;
}

function tenantsSection(m: DashboardModel): SafeHtml {
  const rows = m.tenants.map(
    (
      t,
    ) => html`<tr data-tenant="${t.tenant_id}"><td><a href="${tenantPagePath(t.tenant_id)}">${t.name}</a><br><code class="muted">${t.tenant_id}</code></td>
<td class="status-${t.status}">${t.status}</td>
${t.unavailable === undefined ? countCells(t) : html`<td colspan="8" class="muted">unavailable: ${t.unavailable}</td>`}</tr>`,
  );
  return html`<section id="tenants"><h2>Tenants</h2><table>
<thead><tr><th>tenant</th><th>status</th>${CATEGORIES.map((c) => html`<th class="n">${c}</th>`)}<th class="n">entries</th><th class="n">open dead letters</th></tr></thead>
<tbody>${rows.length > 0 ? rows : html`<tr><td colspan="10" class="muted">No tenants yet.</td></tr>`}</tbody></table>
${m.nextPage ? html`<p><a href="${m.nextPage}">Next tenants →</a></p>` : ""}</section>`;
}

function countCells(t: TenantRow): SafeHtml {
  return html`${CATEGORIES.map((c) => html`<td class="n">${formatNumber(t.entries[c])}</td>`)}
<td class="n"><b>${formatNumber(total(t.entries))}</b></td><td class="n">${formatNumber(t.dead_letters)}</td>`;
}

function revenueSection(tenants: TenantRow[]): SafeHtml {
  const blocks = tenants.map((t) => {
    const r = t.revenue;
    const headline =
      r.currency === null
        ? r.by_currency.map((c) => `${formatNumber(c.revenue)} ${c.currency}`).join(" · ")
        : `${formatNumber(r.revenue ?? 0)} ${r.currency}`;
    const perAgent =
      r.revenue_per_agent === null ? "—" : `${formatNumber(r.revenue_per_agent)} ${r.currency ?? ""}`;
    const agents = r.by_agent.map(
      (a) =>
        html`<tr><td>${a.agent_id}</td><td class="n">${a.outcomes}</td><td class="n">${
          a.revenue === null
            ? a.by_currency.map((c) => `${formatNumber(c.revenue)} ${c.currency}`).join(" · ")
            : formatNumber(a.revenue)
        }</td></tr>`,
    );
    if (t.unavailable !== undefined)
      return html`<tr data-tenant="${t.tenant_id}"><td>${t.name}</td><td colspan="4" class="muted">unavailable: ${t.unavailable}</td></tr>`;
    return html`<tr data-tenant="${t.tenant_id}"><td>${t.name}</td><td class="n">${headline}</td><td class="n">${r.agents}</td><td class="n">${perAgent}</td>
<td>${agents.length > 0 ? html`<table><thead><tr><th>agent</th><th class="n">outcomes</th><th class="n">revenue</th></tr></thead><tbody>${agents}</tbody></table>` : html`<span class="muted">no agent activity</span>`}</td></tr>`;
  });
  return html`<section id="revenue"><h2>Revenue per agent (last 30 days)</h2><table>
<thead><tr><th>tenant</th><th class="n">revenue</th><th class="n">agents</th><th class="n">per agent</th><th>by agent</th></tr></thead>
<tbody>${blocks}</tbody></table></section>`;
}

const DELIVERY_KINDS = [
  { key: "accepted", name: "accepted", colour: "#59a14f" },
  { key: "duplicates", name: "duplicates", colour: "#9aa5b1" },
  { key: "ignored", name: "ignored", colour: "#cfd6de" },
  { key: "dead_lettered", name: "dead-lettered", colour: "#e15759" },
] as const;

function deliveriesSection(deliveries: DeliveryCounts[]): SafeHtml {
  const rejectedTotal = (d: DeliveryCounts) => Object.values(d.rejected).reduce((a, b) => a + b, 0);
  const rows = deliveries.map(
    (
      d,
    ) => html`<tr data-source="${d.source}"><td>${d.source}</td>${DELIVERY_KINDS.map((k) => html`<td class="n">${formatNumber(d[k.key])}</td>`)}
<td>${Object.entries(d.rejected).map(([status, n]) => html`<span>${status}: ${formatNumber(n)}</span> `)}</td></tr>`,
  );
  const bars: BarRow[] = deliveries.map((d) => ({
    label: d.source,
    segments: [
      ...DELIVERY_KINDS.map((k) => ({ name: k.name, colour: k.colour, value: d[k.key] })),
      { name: "rejected", colour: "#8c564b", value: rejectedTotal(d) },
    ],
  }));
  return html`<section id="webhooks"><h2>Events per source (since the runtime started)</h2>
${deliveries.length === 0 ? html`<p class="muted">No deliveries yet.</p>` : stackedBars("Events per source", bars)}
<table><thead><tr><th>source</th>${DELIVERY_KINDS.map((k) => html`<th class="n">${k.name}</th>`)}<th>rejected, by status</th></tr></thead>
<tbody>${rows}</tbody></table></section>`;
}

function denialsSection(denials: Denial[]): SafeHtml {
  const rows = denials.map(
    (d) =>
      html`<tr><td>${d.at}</td><td><code>${d.tenant_id}</code></td><td>${d.sub}</td><td><code>${d.method} ${d.path}</code></td><td>${d.permission}</td><td>${d.reason}</td></tr>`,
  );
  return html`<section id="denials"><h2>Recent denials</h2><table>
<thead><tr><th>at</th><th>tenant</th><th>sub</th><th>request</th><th>permission</th><th>reason</th></tr></thead>
<tbody>${rows.length > 0 ? rows : html`<tr><td colspan="6" class="muted">No denials.</td></tr>`}</tbody></table></section>`;
}

function total(entries: Record<Category, number>): number {
  return CATEGORIES.reduce((sum, c) => sum + entries[c], 0);
}
