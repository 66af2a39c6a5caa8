/**
 * Export and import of a whole tenant, audited: the export is recorded before its first byte goes
 * out (and cancelled when the record cannot be made), the import once it is committed.
 */
import type { ScopeQuery } from "../models/scope.ts";
import { scopeFilterOf } from "../models/scope.ts";
import type { ImportReply } from "../models/tenant-export.ts";
import type { AdminAuditSink } from "../tenants/lifecycle.ts";
import type { ExportImport, TenantExport } from "./export-import.ts";

export interface TransferServiceDeps {
  exportImport: Pick<ExportImport, "export" | "import">;
  audit: AdminAuditSink;
}

export class TransferService {
  constructor(private readonly deps: TransferServiceDeps) {}

  /** The tenant's export (its counts known before the stream), once audited. */
  async export(tenantId: string, scope: ScopeQuery, by: string): Promise<TenantExport> {
    const exported = await this.deps.exportImport.export(tenantId, scope);
    try {
      const filter = scopeFilterOf(scope);
      await this.deps.audit({
        action: "tenant.exported",
        sub: by,
        tenant_id: tenantId,
        target: null,
        // A scoped export says whose memory left (one end user's, for an access request).
        details: { counts: exported.counts, ...(filter ? { scope: filter } : {}) },
      });
    } catch (error) {
      await exported.stream.cancel();
      throw error;
    }
    return exported;
  }

  /** Imports an export into an empty tenant (all or nothing), then audits it. */
  async import(tenantId: string, body: ReadableStream<Uint8Array> | null, by: string): Promise<ImportReply> {
    const reply = await this.deps.exportImport.import(tenantId, body);
    await this.deps.audit({
      action: "tenant.imported",
      sub: by,
      tenant_id: tenantId,
      target: reply.source_tenant_id,
      details: { imported: reply.imported, took_ms: reply.took_ms },
    });
    return reply;
  }
}
