import { TokenService } from "../src/auth/tokens.ts";
import { OPERATOR_TENANT_ID } from "../src/models/common.ts";
import { systemClock } from "../src/runtime/clock.ts";
import type { TenantToken } from "./search-fill.ts";

/** The secret the benchmark's service processes sign tokens with. */
export const BENCH_SECRET = "bench-secret-bench-secret-bench-secret-0123456789";

/** An operator token for the service started with `secret` (as `bun run mint-token` makes one). */
export async function adminToken(secret = BENCH_SECRET): Promise<string> {
  const tokens = new TokenService(new TextEncoder().encode(secret), systemClock);
  const minted = await tokens.mint({
    sub: "bench",
    tenantId: OPERATOR_TENANT_ID,
    roles: [],
    admin: true,
    ttlSeconds: 7200,
  });
  return minted.token;
}

/** `POST /admin/tenants`: a new tenant and its first tenant_admin token. */
export async function createTenant(url: string, admin: string, name: string): Promise<TenantToken> {
  const res = await fetch(`${url}/admin/tenants`, {
    method: "POST",
    headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
    body: JSON.stringify({ name: `${name}-${Date.now()}` }),
  });
  if (res.status !== 201) throw new Error(`create tenant: ${res.status} ${await res.text()}`);
  return (await res.json()) as TenantToken;
}

/** `POST /memory/search` as an agent sends it: the text only (the service embeds it), limit 10. */
export async function httpSearch(url: string, token: string, query: string): Promise<number> {
  const res = await fetch(`${url}/memory/search`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ query, limit: 10 }),
  });
  await res.arrayBuffer();
  return res.status;
}
