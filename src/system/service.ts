/**
 * The operator's system actions: a reload (`POST /admin/reload`, as SIGHUP does) re-reads the
 * secrets file and the CRM mapping, then is recorded in the admin audit log (never a secret's value).
 */
import type { Static } from "@sinclair/typebox";
import type { ReloadReport } from "../models/health.ts";
import type { AdminAuditSink } from "../tenants/lifecycle.ts";

type Report = Static<typeof ReloadReport>;

export interface SystemServiceDeps {
  reload(): Promise<Report>;
  audit: AdminAuditSink;
}

export class SystemService {
  constructor(private readonly deps: SystemServiceDeps) {}

  async reload(by: string): Promise<Report> {
    const report = await this.deps.reload();
    await this.deps.audit({
      action: "secrets.reloaded",
      sub: by,
      tenant_id: null,
      target: null,
      details: {
        secrets: report.secrets.error ? "refused" : report.secrets.reloaded ? "reloaded" : "no file",
        tenants_changed: report.secrets.tenants_changed ?? 0,
        crm_mapping: report.crm_mapping.reloaded ? "reloaded" : "refused",
      },
    });
    return report;
  }
}
