import type { AdminEvent } from "../models/admin-event.ts";
import type { Denial } from "../models/denial.ts";
import type { AuditPage, SystemStore } from "../vault/system-store.ts";

export type { AuditPage };

/** The two audit logs as the API reads them, newest first: admin actions, and each tenant's denials. */
export class AuditLogs {
  constructor(private readonly store: SystemStore) {}

  /** Up to `limit` admin actions recorded before the position `before` (all, when absent). */
  adminEvents(limit: number, before?: number): AuditPage<AdminEvent> {
    return this.store.listAdminEvents(limit, before);
  }

  /** Up to `limit` of the tenant's denials recorded before the position `before` (all, when absent). */
  denials(tenantId: string, limit: number, before?: number): AuditPage<Denial> {
    return this.store.listDenials(tenantId, limit, before);
  }
}
