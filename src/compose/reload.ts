import type { ConnectorSupervisor } from "../connectors/supervisor.ts";
import type { CrmMappingHolder } from "../ingest/crm-mapping-holder.ts";
import type { Secrets } from "../secrets/secrets.ts";

/** What a reload (SIGHUP, `POST /admin/reload`) did: never a secret's value. */
export interface ReloadReport {
  secrets: {
    reloaded: boolean;
    tenants_changed?: number;
    connectors?: Record<string, unknown>;
    error?: string;
  };
  crm_mapping: { reloaded: boolean; error?: string };
}

export interface ReloadDeps {
  secrets: Secrets;
  connectors: ConnectorSupervisor;
  crmMapping: CrmMappingHolder;
}

/**
 * A reload (SIGHUP, `POST /admin/reload`): the secrets file is read again and the connectors of
 * the tenants whose secrets changed follow it; the CRM mapping file is read again. Each part
 * reports on its own: a refused file keeps what was loaded before and says why, never a value.
 */
export function reloader({ secrets, connectors, crmMapping }: ReloadDeps): () => Promise<ReloadReport> {
  return async () => {
    const report: ReloadReport = { secrets: { reloaded: false }, crm_mapping: { reloaded: false } };
    try {
      const changed = secrets.reload();
      const connectorChanges: Record<string, unknown> = {};
      for (const tenantId of changed) {
        const changes = await connectors.reconcile(tenantId);
        if (Object.keys(changes).length > 0) connectorChanges[tenantId] = changes;
      }
      report.secrets = {
        reloaded: secrets.reloadable,
        tenants_changed: changed.size,
        connectors: connectorChanges,
      };
    } catch (error) {
      report.secrets = { reloaded: false, error: error instanceof Error ? error.message : String(error) };
    }
    const refused = crmMapping.reload();
    report.crm_mapping = refused ? { reloaded: false, error: refused } : { reloaded: true };
    return report;
  };
}
