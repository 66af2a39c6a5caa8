import type { SourceView } from "../../models/webhook-operations.ts";
import { formatNumber, html, type SafeHtml } from "./html.ts";
import { postForm } from "./post-form.ts";

/** The sources part of a tenant's page: where its pause and resume buttons post. */
export interface SourcesShown {
  /** The form the buttons post to (src/dashboard/tenant-routes.ts). */
  action: string;
  formToken: string | undefined;
  sources: SourceView[];
  /** What the last button did, from the redirect that came back here. */
  changed?: { source: string; status: "active" | "paused" };
}

/** A source worth a row of its own: paused, resuming, holding events or dead letters, or ever paused. */
const notable = (s: SourceView) =>
  s.status === "paused" || s.resuming || s.held > 0 || s.dead_letters > 0 || s.changed_at !== null;

/**
 * Each source's status (docs/webhook-operations.md) with a Pause or Resume button: the sources with
 * something to say first, the others (active, never paused, nothing held) folded under one line.
 */
export function sourcesSection(m: SourcesShown): SafeHtml {
  const shown = m.sources.filter(notable);
  const quiet = m.sources.filter((s) => !notable(s));
  const row = (s: SourceView) => {
    const paused = s.status === "paused";
    const button = postForm(
      m.action,
      { source: s.source, action: paused ? "resume" : "pause" },
      paused ? "Resume" : "Pause",
      m.formToken,
    );
    const status = s.resuming ? "paused, resuming" : s.status;
    return html`<tr data-source="${s.source}" class="status-${s.status}"><td><code>${s.source}</code></td><td>${status}</td>
<td class="n">${formatNumber(s.held)}</td><td class="n">${formatNumber(s.dead_letters)}</td><td>${s.changed_at ?? ""}</td><td>${button}</td></tr>`;
  };
  const head = html`<thead><tr><th>source</th><th>status</th><th class="n">held</th><th class="n">dead letters</th><th>changed</th><th></th></tr></thead>`;
  const folded =
    quiet.length === 0
      ? ""
      : html`<details><summary>${formatNumber(quiet.length)} other sources, active, nothing held</summary><table>${head}<tbody>${quiet.map(row)}</tbody></table></details>`;
  return html`<section id="sources"><h2>Sources</h2>${changedNotice(m.changed)}<table>${head}
<tbody>${shown.length > 0 ? shown.map(row) : html`<tr><td colspan="6" class="muted">No source paused, nothing held.</td></tr>`}</tbody></table>
${folded}
<p class="muted">A paused source's deliveries are still verified, then held (answered 202) until it is resumed; Resume applies them in arrival order, each once. Both are recorded in the admin audit log.</p></section>`;
}

function changedNotice(changed: SourcesShown["changed"]): SafeHtml | string {
  if (!changed) return "";
  return changed.status === "paused"
    ? html`<p class="notice" role="status">Source <code>${changed.source}</code> paused: its deliveries are held.</p>`
    : html`<p class="notice" role="status">Source <code>${changed.source}</code> resumed: its held events are applied.</p>`;
}
