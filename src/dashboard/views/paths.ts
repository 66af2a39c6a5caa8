/** Where the dashboard's pages are, and where their forms post: the routes and the pages agree here. */

/** The operator's overview; every other page is under it. */
export const DASHBOARD_PATH = "/admin/dashboard";
/** Where the token form posts, and where signing out goes. */
export const SESSION_PATH = `${DASHBOARD_PATH}/session`;
export const SIGN_OUT_PATH = `${DASHBOARD_PATH}/sign-out`;
const TENANT_PAGES = `${DASHBOARD_PATH}/tenants`;

export function tenantPagePath(tenantId: string): string {
  return `${TENANT_PAGES}/${encodeURIComponent(tenantId)}`;
}

/** Where a source's pause or resume button posts. */
export function sourceFormPath(tenantId: string): string {
  return `${tenantPagePath(tenantId)}/sources`;
}

/** Where a dead letter's replay form posts. */
export function replayFormPath(tenantId: string): string {
  return `${tenantPagePath(tenantId)}/replay`;
}

/** Where a dead letter's discard form posts. */
export function discardFormPath(tenantId: string): string {
  return `${tenantPagePath(tenantId)}/discard`;
}

/** One entry's page: its fields, origin, validity, history and links (category singular, as stored). */
export function entryPagePath(tenantId: string, category: string, id: string): string {
  return `${tenantPagePath(tenantId)}/entries/${encodeURIComponent(category)}/${encodeURIComponent(id)}`;
}

/** A tenant's memory search: the tenant page's search box sends its query here (GET). */
export function searchPagePath(tenantId: string): string {
  return `${tenantPagePath(tenantId)}/search`;
}

/** Where the tenant page's suspend or resume button posts. */
export function statusFormPath(tenantId: string): string {
  return `${tenantPagePath(tenantId)}/status`;
}

/** Where the overview's create-a-tenant form posts. */
export const CREATE_TENANT_PATH = TENANT_PAGES;

/** Where the tenant page's mint form posts. */
export function tokenFormPath(tenantId: string): string {
  return `${tenantPagePath(tenantId)}/tokens`;
}

/** Where the tenant page's delete form posts. */
export function deleteFormPath(tenantId: string): string {
  return `${tenantPagePath(tenantId)}/delete`;
}
