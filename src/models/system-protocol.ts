import type { Denial } from "./denial.ts";
import type { Role } from "./role.ts";
import type { Tenant } from "./tenant.ts";

/** Messages of the system actor (actors/system.ts), which serialises every system-store write. */
export type SystemProtocol = {
  "tenant.create": { msg: { name: string }; reply: Tenant };
  "role.put": {
    msg: { tenantId: string; role: Omit<Role, "builtin"> };
    reply: { role: Role; replaced: boolean };
  };
  "role.delete": { msg: { tenantId: string; name: string }; reply: { deleted: string } };
  "denial.record": { msg: { denial: Denial }; reply: undefined };
};
