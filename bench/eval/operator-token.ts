/**
 * An operator token for an in-process runtime, signed as the project's token contract describes
 * (HS256 with MEMORY_RUNTIME_JWT_SECRET; claims sub, tenant_id, roles, admin, iat, exp, jti): any
 * tool that signs these claims with the runtime's secret mints a valid token, so the harness needs
 * no internal module for it.
 */
import { randomUUID } from "node:crypto";
import { SignJWT } from "jose";

/** The operator's reserved all-zeros tenant id. */
const OPERATOR_TENANT = "00000000000000000000000000";

export async function operatorToken(secret: string, ttlSeconds = 24 * 3600): Promise<string> {
  const iat = Math.floor(Date.now() / 1000);
  return new SignJWT({
    sub: "eval",
    tenant_id: OPERATOR_TENANT,
    roles: [],
    admin: true,
    iat,
    exp: iat + ttlSeconds,
    jti: randomUUID(),
  })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .sign(new TextEncoder().encode(secret));
}
