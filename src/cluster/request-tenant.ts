/**
 * Which tenant a request is for, to route it to the tenant's owner: the first path segment that is
 * a tenant ULID (`/tenants/{id}/…`, `/admin/…/{tenant_id}`, `/webhooks/{source}/{tenant_id}`),
 * else the `tenant_id` claim of the bearer token, decoded but not verified (the owner verifies it:
 * a forged claim only picks which node refuses it). Routes with neither are served locally.
 */
import { OPERATOR_TENANT_ID, ULID_RE } from "../models/common.ts";

export function tenantOfRequest(request: Request): string | undefined {
  const path = new URL(request.url).pathname;
  for (const segment of path.split("/")) {
    if (isTenantId(segment)) return segment;
  }
  return tenantOfBearer(request.headers.get("authorization"));
}

function isTenantId(text: string): boolean {
  return text.length === 26 && ULID_RE.test(text) && text !== OPERATOR_TENANT_ID;
}

function tenantOfBearer(authorization: string | null): string | undefined {
  const match = /^Bearer\s+[A-Za-z0-9_-]+\.([A-Za-z0-9_-]+)\.[A-Za-z0-9_-]*$/i.exec(authorization ?? "");
  if (!match) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(match[1]!, "base64url").toString("utf8")) as {
      tenant_id?: unknown;
    };
    return typeof claims.tenant_id === "string" && isTenantId(claims.tenant_id)
      ? claims.tenant_id
      : undefined;
  } catch {
    return undefined;
  }
}
