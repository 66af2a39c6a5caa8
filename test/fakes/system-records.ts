/** Records of the system store (tenants, denials) as the store and replica tests write them. */
import type { Denial } from "../../src/models/denial.ts";
import type { Tenant } from "../../src/models/tenant.ts";

export const tenantRecord = (tenant_id: string, name: string): Tenant => ({
  tenant_id,
  name,
  status: "active",
  created_at: "2026-11-21T10:00:00.000Z",
});

/** The n-th denial of a tenant: distinct time, subject and path per n. */
export const denialRecord = (tenantId: string, n: number): Denial => ({
  at: new Date(Date.UTC(2026, 10, 21, 10, 0, n)).toISOString(),
  tenant_id: tenantId,
  sub: `agent-${n}`,
  roles: ["reader"],
  method: "GET",
  path: `/p/${n}`,
  permission: "tenant:read",
  reason: "no role grants tenant:read",
});
