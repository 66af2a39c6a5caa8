/**
 * Erasure of a tenant's entries (`POST /admin/tenants/{tenant_id}/erase`): the erasure itself
 * (src/tenants/erase-tenant.ts, shared with the tenant's deletion) compacts the vault before it
 * returns; a real (not dry) run is then recorded in the admin audit log before the answer.
 */
import type { EraseReport, EraseRequest } from "../models/erase.ts";
import type { AdminAuditSink } from "../tenants/lifecycle.ts";

export interface EraseServiceDeps {
  /** Erases matching entries of a tenant and compacts its vault before answering. */
  eraseEntries(tenantId: string, request: EraseRequest, by: string): Promise<EraseReport>;
  audit: AdminAuditSink;
}

export class EraseService {
  constructor(private readonly deps: EraseServiceDeps) {}

  async erase(tenantId: string, request: EraseRequest, by: string): Promise<EraseReport> {
    const report = await this.deps.eraseEntries(tenantId, request, by);
    if (!report.dry_run)
      await this.deps.audit({
        action: "entries.erased",
        sub: by,
        tenant_id: tenantId,
        target: null,
        // Counts and criteria kinds only: the subject itself is the very data being erased.
        details: {
          entries: report.erased.length,
          dead_letters: report.dead_letters_removed,
          by: ["ids", "subject", "tags"].filter((k) => request[k as keyof EraseRequest] !== undefined),
        },
      });
    return report;
  }
}
