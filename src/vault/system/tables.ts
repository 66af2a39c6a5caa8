/**
 * Every named database of the system environment (`<data>/system`), in one list, grouped by the
 * slice of the system store that owns it: its name on disk and the types of its keys and values.
 * The names and keys are the on-disk layout: never renamed, or existing data directories would
 * open empty (a snapshot copies the databases by these names too).
 */
import type { AdminEvent } from "../../models/admin-event.ts";
import type { Denial } from "../../models/denial.ts";
import type { Role } from "../../models/role.ts";
import type { Tenant } from "../../models/tenant.ts";
import { type Opened, table } from "../tables.ts";

export const SYSTEM_TABLES = {
  /** Tenants and their unique names (tenants.ts). */
  tenants: {
    tenants: table<Tenant>("tenants"),
    /** nameKey(name) → tenant id: names are unique after folding. */
    names: table<string>("tenant-names"),
  },
  /** [tenant id, role name] → the tenant's stored roles (roles.ts). */
  roles: {
    roles: table<Role, [string, string]>("roles"),
  },
  /** [tenant id, global sequence] → one refused request (denials.ts); the name predates the admin log. */
  denials: {
    denials: table<Denial, [string, number]>("audit"),
  },
  /** sequence → one admin action (admin-audit.ts). */
  adminAudit: {
    events: table<AdminEvent, number>("admin-audit"),
  },
  /** Counters the slices keep, by the keys in META_KEYS. */
  meta: {
    meta: table<number>("meta"),
  },
} as const;

/** The keys of the `meta` table, each owned by one slice. */
export const META_KEYS = {
  /** denials.ts: the high-water mark of the denial sequence, so a restart never reuses one. */
  auditSeq: "audit-seq",
  /** admin-audit.ts: the last admin action's sequence. */
  adminSeq: "admin-audit-seq",
  /** tenants.ts: the nameKey version the name index was written with. */
  nameKeyVersion: "name-key-version",
  /** replication.ts: cluster mode's last `MR_SYSTEM` command applied (docs/cluster.md). */
  appliedSeq: "system-applied-seq",
} as const;

export type SystemGroup = keyof typeof SYSTEM_TABLES;

/** The opened tables of one slice. */
export type SystemTablesOf<G extends SystemGroup> = Opened<(typeof SYSTEM_TABLES)[G]>;

/** The meta table, which several slices share (each with its own key). */
export type MetaTable = SystemTablesOf<"meta">["meta"];

/** Every table's name on disk, in list order: what a snapshot copies and `replaceWith` refills. */
export const SYSTEM_DATABASES: string[] = Object.values(SYSTEM_TABLES).flatMap((group) =>
  Object.values(group).map((spec) => spec.name),
);
