/**
 * What one tenant's dashboard page shows, gathered from its actor (figures, recent entries, dead
 * letters, connector statuses) and the system store (denials). In cluster mode the request has
 * reached the node serving the tenant (its id is in the path), so the actor asked is local.
 */
import { CATEGORIES } from "../models/category.ts";
import { isoOf } from "../models/common.ts";
import type { DeadLetter } from "../models/dead-letter.ts";
import type { Entry } from "../models/entry.ts";
import type { Tenant } from "../models/tenant.ts";
import { tenantStats } from "../operator-metrics/tenant-stats.ts";
import type { TenantHealth } from "../protocols/tenant-protocol.ts";
import { type EntryState, entryState } from "./entry-state.ts";
import type { DashboardServiceDeps } from "./service-deps.ts";
import {
  DEAD_LETTERS_SHOWN,
  DENIALS_SHOWN,
  RECENT_ENTRIES,
  type TenantPageModel,
} from "./views/tenant-page.ts";
import { CHART_DAYS, lastDays, writesPerDay } from "./writes-per-day.ts";

type Health = Omit<TenantHealth, "tenant_id" | "status">;

/** A tenant whose vault was never made: nothing to ask (asking would make it). */
const NO_VAULT: Health = {
  vault: { present: false, entries: 0 },
  index: { vectors: 0, pending: 0, pending_vectors: 0 },
  dead_letters: 0,
  connectors: {},
};

export interface PageAsked {
  tenant: Tenant;
  formToken: string | undefined;
  replayed?: TenantPageModel["replayed"];
  sourceChanged?: TenantPageModel["sourceChanged"];
  discarded?: string;
  /** Show superseded, retracted, ended and future entries among the recent ones too. */
  showAll?: boolean;
  /** The status the last suspend or resume button set. */
  statusSet?: "suspended" | "active";
}

export async function tenantPageModel(
  deps: DashboardServiceDeps,
  asked: PageAsked,
): Promise<TenantPageModel> {
  const { tenant } = asked;
  const id = tenant.tenant_id;
  const now = deps.clock.now();
  const days = lastDays(now, CHART_DAYS);
  const present = deps.tenants.vaultPresent(id);
  const [stats, health, recentEntries, deadLetters, sources] = await Promise.all([
    tenantStats(deps, id, { fromDay: days[0]!, toDay: days[days.length - 1]! }),
    present ? deps.tenant(id).ask({ type: "tenant.health" }) : NO_VAULT,
    present ? newestEntries(deps, id, now) : [],
    present
      ? deps.tenant(id).ask({ type: "deadletter.list", limit: DEAD_LETTERS_SHOWN })
      : ([] as DeadLetter[]),
    present ? deps.webhooks.sources(id) : deps.webhooks.idle(),
  ]);
  return {
    version: deps.config.version,
    generatedAt: isoOf(now),
    tenant: { tenant_id: id, name: tenant.name, status: tenant.status, created_at: tenant.created_at },
    roles: deps.tenants.roles(id).map((r) => r.name),
    formToken: asked.formToken,
    statusSet: asked.statusSet,
    replayed: asked.replayed,
    figures: {
      entries: stats.entries_per_category,
      openDeadLetters: stats.dead_letters,
      deadLettersKept: health.dead_letters,
      vault: health.vault,
      index: health.index,
    },
    days,
    writesPerDay: writesPerDay(days, [stats]),
    recentEntries: recentOf(recentEntries, now, asked.showAll === true),
    deadLetters,
    connectors: health.connectors,
    denials: deps.auditLogs.denials(id, DENIALS_SHOWN).items,
    sources,
    sourceChanged: asked.sourceChanged,
    discarded: asked.discarded,
  };
}

/** The newest entries with their states: all of them, or the current ones and a count of the rest. */
function recentOf(entries: Entry[], now: number, showAll: boolean): TenantPageModel["recentEntries"] {
  const rows = entries.map((entry) => ({ entry, state: entryState(entry, now) }));
  const hidden: Partial<Record<EntryState, number>> = {};
  if (!showAll) for (const r of rows) if (r.state !== "current") hidden[r.state] = (hidden[r.state] ?? 0) + 1;
  return { showAll, rows: showAll ? rows : rows.filter((r) => r.state === "current"), hidden };
}

/**
 * The tenant's newest entries written, whatever their time, across categories: each category's list is newest first,
 * so the newest of their first pages, by recorded_at, are the newest of all.
 */
async function newestEntries(deps: DashboardServiceDeps, tenantId: string, now: number): Promise<Entry[]> {
  const pages = await Promise.all(
    CATEGORIES.map((category) =>
      deps.tenant(tenantId).ask({
        type: "entry.list",
        category,
        limit: RECENT_ENTRIES,
        validAt: now,
        asOf: now,
        everything: true,
        includeEmbedding: false,
      }),
    ),
  );
  // A stable sort: entries recorded in the same millisecond keep their category's newest-first order.
  return pages
    .flatMap((p) => p.items)
    .sort((a, b) => b.recorded_at.localeCompare(a.recorded_at))
    .slice(0, RECENT_ENTRIES);
}
