import { expect } from "bun:test";
import type { Harness } from "./harness.ts";

export interface DenialRecord {
  at: string;
  tenant_id: string;
  sub: string;
  roles: string[];
  method: string;
  path: string;
  permission: string;
  reason: string;
}

export async function denialsOf(h: Harness, tenantId: string, limit = 1000): Promise<DenialRecord[]> {
  const { status, body } = await h.json("GET", `/admin/audit/denials/${tenantId}?limit=${limit}`, {
    token: h.adminToken,
  });
  expect(status).toBe(200);
  return body.denials;
}

/**
 * The tenant's denials, read once: every 403 is committed to the audit log before it is sent
 * (CONTRACT §4), so at least `count` must be there already, without waiting.
 */
export async function waitForDenials(h: Harness, tenantId: string, count: number): Promise<DenialRecord[]> {
  const denials = await denialsOf(h, tenantId);
  expect(denials.length).toBeGreaterThanOrEqual(count);
  return denials;
}

/**
 * Puts a role through the admin API: 201 when it is new, 200 when it replaces one of that name
 * (docs/api.md, "Tokens and roles"). Which one is expected is read from the library first, so a test
 * that puts the same role twice still asserts one determined status each time.
 */
export async function putRole(
  h: Harness,
  tenantId: string,
  body: { name: string; permissions: string[]; description?: string },
): Promise<void> {
  const library = await h.json("GET", `/admin/roles/${tenantId}`, { token: h.adminToken });
  expect(library.status).toBe(200);
  const exists = library.body.roles.some((r: { name: string }) => r.name === body.name);
  const put = await h.json("POST", `/admin/roles/${tenantId}`, { token: h.adminToken, body });
  expect({ role: body.name, status: put.status }).toEqual({ role: body.name, status: exists ? 200 : 201 });
}

/** Creates a role through the admin API and mints a token holding only that role. */
export async function tokenWithRole(
  h: Harness,
  tenantId: string,
  role: string,
  permissions: string[],
  sub = `${role}-agent`,
): Promise<string> {
  await putRole(h, tenantId, { name: role, permissions });
  const minted = await h.json("POST", `/admin/jwt/${tenantId}`, {
    token: h.adminToken,
    body: { roles: [role], sub },
  });
  expect(minted.status).toBe(201);
  return minted.body.token;
}

export interface DecodedClaims {
  sub: string;
  tenant_id: string;
  roles: string[];
  admin?: boolean;
  iat: number;
  exp: number;
  jti?: string;
}

export function decodePayload(token: string): DecodedClaims {
  return JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8"));
}

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A response's JSON body, loosely typed for assertions (JSON.parse's own return type). */
export async function readJson(res: Response | Promise<Response>) {
  return JSON.parse(await (await res).text());
}
