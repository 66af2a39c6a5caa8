import type { authPlugin } from "./auth-plugin.ts";
import type { tenantParamPlugin } from "./tenant-param.ts";

/**
 * What every feature module's routes share: the named auth plugin (routes declare
 * `{ auth: "caller" | "admin" }`) and the named `{tenant_id}` plugin (`{ tenant: "any" | "own" }`),
 * one of each per app so the caller is resolved once.
 */
export interface HttpKit {
  authPlugin: ReturnType<typeof authPlugin>;
  tenantParam: ReturnType<typeof tenantParamPlugin>;
}
