/**
 * The page a new token is shown on, once: after the overview's create form (the tenant's first
 * tenant_admin token) and after a tenant page's mint form. It is answered to the POST itself, never
 * by a redirect, so the token is in no address, history or log; PAGE_HEADERS keep it out of every
 * cache (`no-store`) and referrer. Every value escaped.
 */
import { html } from "./html.ts";
import { page } from "./page.ts";
import { DASHBOARD_PATH, SIGN_OUT_PATH, tenantPagePath } from "./paths.ts";

export interface TokenPageModel {
  version: string;
  generatedAt: string;
  /** What was done: "Tenant created", "Token minted". */
  heading: string;
  tenant: { tenant_id: string; name: string };
  token: string;
  sub: string;
  roles: string[];
  expiresAt: string;
  subject?: string;
}

export function tokenPage(m: TokenPageModel): string {
  const restriction = m.subject === undefined ? "" : html` · only subject <code>${m.subject}</code>`;
  return page(
    `${m.heading} · ${m.tenant.name} · typed-memory runtime`,
    html`<header><h1><a href="${DASHBOARD_PATH}">Typed-memory runtime</a> · ${m.heading.toLowerCase()}</h1>
<nav><span class="muted">v${m.version} · ${m.generatedAt}</span> · <a href="${SIGN_OUT_PATH}">Sign out</a></nav></header>
<main><section id="token">
<h2>${m.heading}: ${m.tenant.name}</h2>
<p class="notice" role="status">Copy the token now: it is shown this once and is not stored anywhere.</p>
<p><label for="minted-token">Token for <b>${m.sub}</b> · roles ${m.roles.join(", ")}${restriction} · expires ${m.expiresAt}</label></p>
<textarea id="minted-token" class="token" readonly rows="5" spellcheck="false">${m.token}</textarea>
<p><a href="${tenantPagePath(m.tenant.tenant_id)}">Go to ${m.tenant.name} →</a></p>
</section></main>`,
  );
}
