/**
 * The dashboard's forms that create or remove something: a tenant (the overview), a token for a
 * role and a lifetime, and the deletion of a suspended tenant (its page). Each posts with the page's
 * form token (src/http/dashboard-form.ts); every value is escaped.
 */
import { MAX_TENANT_NAME } from "../../models/tenant.ts";
import { TOKEN_LIFETIMES } from "../model.ts";
import { html, type SafeHtml } from "./html.ts";
import { CREATE_TENANT_PATH, deleteFormPath, tokenFormPath } from "./paths.ts";
import { formTokenField } from "./post-form.ts";

/** The overview's "new tenant" form: a name; the answer shows its first tenant_admin token once. */
export function createTenantForm(formToken: string | undefined): SafeHtml {
  return html`<form class="action" method="post" action="${CREATE_TENANT_PATH}">
<label for="new-tenant-name">Name</label>
<input id="new-tenant-name" name="name" required maxlength="${MAX_TENANT_NAME}" autocomplete="off">
${formTokenField(formToken)}<button type="submit">Create tenant</button></form>`;
}

/**
 * The tenant page's mint form: roles of its library (comma-separated; the first other than
 * tenant_admin proposed), who it is for, a lifetime, and optionally the one subject it may see.
 */
export function mintTokenForm(tenantId: string, roles: string[], formToken: string | undefined): SafeHtml {
  const proposed = roles.find((r) => r !== "tenant_admin") ?? roles[0] ?? "";
  const lifetimes = TOKEN_LIFETIMES.map(
    (l, i) => html`<option value="${l.seconds}"${i === 0 ? html` selected` : ""}>${l.label}</option>`,
  );
  return html`<form class="action" method="post" action="${tokenFormPath(tenantId)}">
<label for="mint-roles">Roles</label>
<input id="mint-roles" name="roles" required maxlength="2048" value="${proposed}" list="tenant-roles" autocomplete="off">
<datalist id="tenant-roles">${roles.map((r) => html`<option value="${r}">`)}</datalist>
<label for="mint-sub">For (sub)</label>
<input id="mint-sub" name="sub" maxlength="128" placeholder="agent" autocomplete="off">
<label for="mint-ttl">Lifetime</label>
<select id="mint-ttl" name="ttl_seconds">${lifetimes}</select>
<label for="mint-subject">Only subject (optional)</label>
<input id="mint-subject" name="subject" maxlength="256" autocomplete="off">
${formTokenField(formToken)}<button type="submit">Mint token</button></form>
<p class="muted">Roles of this tenant: ${roles.map((r, i) => html`${i > 0 ? ", " : ""}<code>${r}</code>`)}. The token is shown once, on the next page; it is never stored.</p>`;
}

/**
 * The tenant page's delete form, for a suspended tenant only (the API refuses an active one): the
 * operator types the tenant's id to confirm. An active tenant's page says to suspend it first.
 */
export function deleteTenantForm(
  tenant: { tenant_id: string; status: string },
  formToken: string | undefined,
): SafeHtml {
  if (tenant.status !== "suspended")
    return html`<p class="muted">To delete this tenant, suspend it first: its vault, roles and audit records are then erased for good.</p>`;
  return html`<form class="action danger" method="post" action="${deleteFormPath(tenant.tenant_id)}">
<label for="delete-confirm">Type the tenant's id, <code>${tenant.tenant_id}</code>, to erase its vault, roles and audit records for good</label>
<input id="delete-confirm" name="confirm" required maxlength="64" autocomplete="off" pattern="${tenant.tenant_id}">
${formTokenField(formToken)}<button type="submit">Delete tenant</button></form>`;
}
