import { ulid } from "ulid";
import { Conflict, NotFound, ValidationFailed } from "../src/errors/domain-errors.ts";
import { charCount } from "../src/models/chars.ts";
import { isoOf } from "../src/models/common.ts";
import { type Role, TENANT_ADMIN } from "../src/models/role.ts";
import { MAX_TENANT_NAME, type Tenant } from "../src/models/tenant.ts";
import type { SystemProtocol } from "../src/protocols/system-protocol.ts";
import type { Clock } from "../src/runtime/clock.ts";
import { later } from "../src/runtime/later.ts";
import type { Behaviour } from "../src/runtime/protocol.ts";
import { nameKey, type SystemStore } from "../src/vault/system-store.ts";

export interface SystemDeps {
  store: SystemStore;
  clock: Clock;
  /** Creates the new tenant's vault; runs before the tenant is recorded. */
  initTenant?: (tenantId: string) => Promise<void>;
  /** Removes what a failed `initTenant` (or a tenant that could not be recorded) left on disk. */
  discardTenant?: (tenantId: string) => void | Promise<void>;
  /** Stops a tenant's actors and connectors and erases its vault; answers what the vault held. */
  eraseTenant?: (tenantId: string) => Promise<{ entries: number; dead_letters: number }>;
}

/** The system actor serialises every write to the system store, so name checks never race. */
export function systemBehaviour({
  store,
  clock,
  initTenant,
  discardTenant,
  eraseTenant,
}: SystemDeps): Behaviour<SystemProtocol> {
  return {
    handlers: {
      "tenant.create": async ({ name }) => {
        const trimmed = checkTenantName(name);
        if (store.tenantIdByName(nameKey(trimmed)))
          throw new Conflict(`a tenant named "${trimmed}" already exists`);
        const tenant: Tenant = {
          tenant_id: ulid(clock.now()),
          name: trimmed,
          status: "active",
          created_at: isoOf(clock.now()),
        };
        store.assertRoom();
        // Nothing half-made: a vault that opened for a tenant the store could not record (a full
        // disk: 507) is removed again.
        try {
          await initTenant?.(tenant.tenant_id);
          await store.createTenant(tenant);
        } catch (error) {
          await discardTenant?.(tenant.tenant_id);
          throw error;
        }
        return tenant;
      },
      "tenant.status": async ({ tenantId, status }) => {
        requireTenant(store, tenantId);
        return store.setTenantStatus(tenantId, status);
      },
      "tenant.delete": async ({ tenantId }) => {
        const tenant = requireTenant(store, tenantId);
        if (tenant.status !== "suspended")
          throw new Conflict("only a suspended tenant can be deleted: suspend it first");
        const vault = (await eraseTenant?.(tenantId)) ?? { entries: 0, dead_letters: 0 };
        const records = await store.deleteTenant(tenantId);
        return { ...vault, ...records };
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
      // Grouped commits: the mailbox moves on; the asker (the 403 being sent) waits for durability.
      "denial.record": ({ denial }) => later(store.recordDenial(denial).then(() => undefined)),
      "admin.record": ({ event }) => later(store.recordAdminEvent(event).then(() => undefined)),
    },
  };
}

/** A tenant name as stored: trimmed, 1–128 characters, printable (CONTRACT §4). */
function checkTenantName(name: string): string {
  const trimmed = name.trim();
  const length = charCount(trimmed, MAX_TENANT_NAME);
  if (length < 1 || length > MAX_TENANT_NAME) {
    throw new ValidationFailed(`name must be 1–${MAX_TENANT_NAME} characters after trimming`, [
      { path: "/name", message: `expected 1–${MAX_TENANT_NAME} characters after trimming` },
    ]);
  }
  // Control, format (zero-width, bidi) and line-separator characters hide or forge what a name shows.
  if (UNPRINTABLE.test(trimmed) || !trimmed.isWellFormed()) {
    throw new ValidationFailed("name must not contain control, format or separator characters", [
      { path: "/name", message: "no control (Cc), format (Cf) or line/paragraph separator characters" },
    ]);
  }
  return trimmed;
}

const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

function requireTenant(store: SystemStore, tenantId: string): Tenant {
  const tenant = store.getTenant(tenantId);
  if (!tenant) throw new NotFound(`no tenant ${tenantId}`);
  return tenant;
}
