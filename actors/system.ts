import { ulid } from "ulid";
import { Conflict, NotFound, ValidationFailed } from "../src/errors.ts";
import { isoOf } from "../src/models/common.ts";
import { type Role, TENANT_ADMIN } from "../src/models/role.ts";
import type { SystemProtocol } from "../src/models/system-protocol.ts";
import { MAX_TENANT_NAME, type Tenant } from "../src/models/tenant.ts";
import type { Clock } from "../src/runtime/clock.ts";
import type { Behaviour } from "../src/runtime/protocol.ts";
import { nameKey, type SystemStore } from "../src/vault/system-store.ts";

export interface SystemDeps {
  store: SystemStore;
  clock: Clock;
}

/** The system actor serialises every write to the system store, so name checks never race. */
export function systemBehaviour({ store, clock }: SystemDeps): Behaviour<SystemProtocol> {
  return {
    handlers: {
      "tenant.create": async ({ name }) => {
        const trimmed = name.trim();
        if (trimmed.length < 1 || trimmed.length > MAX_TENANT_NAME) {
          throw new ValidationFailed(`name must be 1–${MAX_TENANT_NAME} characters after trimming`, [
            { path: "/name", message: `expected 1–${MAX_TENANT_NAME} characters after trimming` },
          ]);
        }
        if (store.tenantIdByName(nameKey(trimmed)))
          throw new Conflict(`a tenant named "${trimmed}" already exists`);
        const tenant: Tenant = {
          tenant_id: ulid(clock.now()),
          name: trimmed,
          status: "active",
          created_at: isoOf(clock.now()),
        };
        await store.createTenant(tenant);
        return tenant;
      },
      "role.put": async ({ tenantId, role }) => {
        requireTenant(store, tenantId);
        if (role.name === TENANT_ADMIN)
          throw new ValidationFailed(`"${TENANT_ADMIN}" is built in and cannot be replaced`);
        const stored: Role = { ...role, permissions: [...new Set(role.permissions)], builtin: false };
        const replaced = await store.putRole(tenantId, stored);
        return { role: stored, replaced };
      },
      "role.delete": async ({ tenantId, name }) => {
        requireTenant(store, tenantId);
        if (name === TENANT_ADMIN)
          throw new ValidationFailed(`"${TENANT_ADMIN}" is built in and cannot be deleted`);
        if (!(await store.deleteRole(tenantId, name))) throw new NotFound(`no role "${name}" in this tenant`);
        return { deleted: name };
      },
      "denial.record": async ({ denial }) => {
        await store.recordDenial(denial);
      },
    },
  };
}

function requireTenant(store: SystemStore, tenantId: string): void {
  if (!store.getTenant(tenantId)) throw new NotFound(`no tenant ${tenantId}`);
}
