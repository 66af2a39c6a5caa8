/**
 * A tenant's memory search on the dashboard: the search box (on the tenant's page and atop the
 * results), a GET form to `…/search` (a read: no form token), and the results, each a link to its
 * entry's page. The search is the real one (SearchService.searchAsOperator); every value escaped.
 */
import { CATEGORIES, type Category } from "../../models/category.ts";
import { TRUST_LEVELS } from "../../models/origin.ts";
import type { SearchAnswer } from "../../search/service.ts";
import { entryLink } from "./entry-page.ts";
import { formatNumber, html, type SafeHtml } from "./html.ts";
import { page } from "./page.ts";
import { DASHBOARD_PATH, SIGN_OUT_PATH, searchPagePath, tenantPagePath } from "./paths.ts";

/** A result's content is cut here (its entry's page has all of it). */
const CONTENT_SHOWN = 280;

/** The search's controls the box offers, as POST /memory/search names them (empty: not given). */
export interface SearchControlsAsked {
  /** Comma-separated: every result carries each. */
  tags?: string;
  status?: "" | "open" | "resolved";
  min_trust?: string;
  valid_at?: string;
  as_of?: string;
}

export interface SearchAsked extends SearchControlsAsked {
  q?: string;
  /** Empty: all categories (the box's "all categories" option). */
  category?: Category | "";
  limit?: number;
}

export interface SearchPageModel {
  version: string;
  generatedAt: string;
  tenant: { tenant_id: string; name: string };
  asked: { q: string; category?: Category; limit: number } & SearchControlsAsked;
  /** None until a query is sent. */
  answer?: SearchAnswer;
}

/** The search box: words, a category (or all), a limit; sent as a GET to the tenant's search page. */
export function searchBox(tenantId: string, asked: Partial<SearchPageModel["asked"]> = {}): SafeHtml {
  const options = CATEGORIES.map(
    (c) => html`<option value="${c}"${asked.category === c ? html` selected` : ""}>${c}</option>`,
  );
  return html`<form class="search" method="get" action="${searchPagePath(tenantId)}" role="search">
<input type="search" name="q" value="${asked.q ?? ""}" maxlength="4096" placeholder="Search this tenant's memory" aria-label="search words">
<select name="category" aria-label="category"><option value="">all categories</option>${options}</select>
<input type="number" name="limit" min="1" max="100" value="${asked.limit ?? 20}" aria-label="results at most">
<button type="submit">Search</button>
${controlsOf(asked)}</form>`;
}

/** The search's controls, folded away unless one is set: tags, status, trust, both time axes. */
function controlsOf(asked: Partial<SearchPageModel["asked"]>): SafeHtml {
  const set = Boolean(asked.tags || asked.status || asked.min_trust || asked.valid_at || asked.as_of);
  const choice = (name: string, values: readonly string[], chosen: string | undefined, none: string) =>
    html`<select name="${name}" aria-label="${name}"><option value="">${none}</option>${values.map(
      (v) => html`<option value="${v}"${chosen === v ? html` selected` : ""}>${v}</option>`,
    )}</select>`;
  return html`<details class="controls"${set ? html` open` : ""}><summary>Controls</summary>
<input name="tags" value="${asked.tags ?? ""}" maxlength="1024" placeholder="tags, comma-separated" aria-label="tags">
${choice("status", ["open", "resolved"], asked.status, "any status")}
${choice("min_trust", TRUST_LEVELS, asked.min_trust, "any trust")}
<input name="valid_at" value="${asked.valid_at ?? ""}" maxlength="40" placeholder="valid at (RFC 3339)" aria-label="valid at">
<input name="as_of" value="${asked.as_of ?? ""}" maxlength="40" placeholder="as of (RFC 3339)" aria-label="as of">
</details>`;
}

export function searchPage(m: SearchPageModel): string {
  const tid = m.tenant.tenant_id;
  return page(
    `Search · ${m.tenant.name} · typed-memory runtime`,
    html`<header><h1><a href="${DASHBOARD_PATH}">Typed-memory runtime</a> · search</h1>
<nav><span class="muted">v${m.version} · ${m.generatedAt}</span> · <a href="${SIGN_OUT_PATH}">Sign out</a></nav></header>
<main>
<section id="search"><h2>Search ${m.tenant.name}</h2>
<p><a href="${tenantPagePath(tid)}">← ${m.tenant.name}</a></p>
${searchBox(tid, m.asked)}</section>
${m.answer ? resultsSection(tid, m.answer) : ""}
</main>`,
  );
}

function resultsSection(tenantId: string, answer: SearchAnswer): SafeHtml {
  const rows = answer.results.map(
    (
      r,
    ) => html`<tr data-result="${r.entry.id}"><td class="n">${formatNumber(r.score)}</td><td>${r.entry.category}</td>
<td class="content">${clip(r.entry.content)}${(r.entry.tags ?? []).map((tag) => html` <span class="tag">${tag}</span>`)}</td>
<td>${entryLink(tenantId, r.entry.category, r.entry.id)}<br><span class="muted">${r.entry.valid_from}</span></td>
<td><b>${r.entry.trust}</b></td></tr>`,
  );
  const pending =
    answer.pending_vectors === undefined
      ? ""
      : html`<p class="muted">${formatNumber(answer.pending_vectors)} entries wait for their vector: found by their words only until embedded.</p>`;
  return html`<section id="results"><h2>${formatNumber(answer.results.length)} results (${formatNumber(answer.took_ms)} ms)</h2>${pending}<table>
<thead><tr><th class="n">score</th><th>category</th><th>content</th><th>id · valid from</th><th>trust</th></tr></thead>
<tbody>${rows.length > 0 ? rows : html`<tr><td colspan="5" class="muted">Nothing found.</td></tr>`}</tbody></table></section>`;
}

function clip(text: string): string {
  return text.length <= CONTENT_SHOWN ? text : `${text.slice(0, CONTENT_SHOWN - 1)}…`;
}
