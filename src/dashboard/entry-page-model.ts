/**
 * What one entry's dashboard page shows (`GET /admin/dashboard/tenants/{tenant_id}/entries/{category}/{id}`):
 * the entry as stored and its history, both asked of the tenant's actor. The path's category and id
 * are checked here, not by a schema: a page address that names no entry is a 404 page, whatever it holds.
 */
import { NotFound } from "../errors/domain-errors.ts";
import { CATEGORIES, type Category } from "../models/category.ts";
import { isoOf } from "../models/common.ts";
import type { Tenant } from "../models/tenant.ts";
import type { DashboardServiceDeps } from "./service-deps.ts";
import type { EntryPageModel } from "./views/entry-page.ts";

const ENTRY_ID = /^[0-9a-f]{8}$/;

export interface EntryAsked {
  tenant: Tenant;
  category: string;
  id: string;
}

export async function entryPageModel(
  deps: Pick<DashboardServiceDeps, "config" | "clock" | "tenants" | "tenant">,
  asked: EntryAsked,
): Promise<EntryPageModel> {
  const { tenant, id } = asked;
  const category = CATEGORIES.find((c) => c === asked.category) as Category | undefined;
  const noSuch = new NotFound(
    `no entry ${JSON.stringify(asked.id.slice(0, 64))} of that category in this tenant`,
  );
  if (category === undefined || !ENTRY_ID.test(id)) throw noSuch;
  // A tenant whose vault was never made holds no entry (and asking would make the vault).
  if (!deps.tenants.vaultPresent(tenant.tenant_id)) throw noSuch;
  const actor = deps.tenant(tenant.tenant_id);
  const [entry, history] = await Promise.all([
    actor.ask({ type: "entry.get", category, id, includeEmbedding: false }),
    actor.ask({ type: "entry.history", category, id }),
  ]);
  return {
    version: deps.config.version,
    generatedAt: isoOf(deps.clock.now()),
    tenant: { tenant_id: tenant.tenant_id, name: tenant.name },
    entry,
    history,
  };
}
