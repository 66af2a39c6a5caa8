/**
 * TokenMintingService (src/tokens/service.ts) on fakes: the roles are checked against the tenant's
 * library before anything is signed; a minted token is audited (never the token itself).
 */
import { describe, expect, test } from "bun:test";
import type { MintRequest } from "../../src/auth/tokens.ts";
import { ValidationFailed } from "../../src/errors/domain-errors.ts";
import { TokenMintingService } from "../../src/tokens/service.ts";
import { auditRecorder } from "../helpers/audit-recorder.ts";

const TENANT = { tenant_id: "01JTENANT0000000000000000A", name: "Acme" };
const TOKEN = "header.payload.signature";

function minting() {
  const log: string[] = [];
  const recorder = auditRecorder(log);
  const minted: MintRequest[] = [];
  const service = new TokenMintingService({
    config: { tokenTtlSeconds: 3600 },
    tenants: { roles: () => [{ name: "agent_rw", permissions: [], description: "", builtin: false }] },
    tokens: {
      async mint(req) {
        log.push("mint");
        minted.push(req);
        return { token: TOKEN, claims: { jti: "jti-1", exp: 1_800_000_000 } } as never;
      },
    },
    audit: recorder.audit,
  });
  return { service, log, minted, audited: recorder.audited };
}

describe("TokenMintingService", () => {
  test("a token: its roles once each, the default sub and lifetime, then the audit without the token", async () => {
    const { service, log, minted, audited } = minting();
    const reply = await service.mint(TENANT, { roles: ["agent_rw", "agent_rw"] }, "ops");
    expect(log).toEqual(["mint", "audit token.minted", "audit committed"]);
    expect(minted[0]).toEqual({
      sub: "agent",
      tenantId: TENANT.tenant_id,
      roles: ["agent_rw"],
      ttlSeconds: 3600,
    });
    expect(reply).toEqual({
      token: TOKEN,
      tenant_id: TENANT.tenant_id,
      sub: "agent",
      roles: ["agent_rw"],
      ttl_seconds: 3600,
      expires_at: "2027-01-15T08:00:00.000Z",
    });
    expect(audited[0]).toEqual({
      action: "token.minted",
      sub: "ops",
      tenant_id: TENANT.tenant_id,
      target: "agent",
      details: { roles: ["agent_rw"], ttl_seconds: 3600, jti: "jti-1" },
    });
    expect(JSON.stringify(audited)).not.toContain(TOKEN);
  });

  test("a subject-restricted token says so in its answer and its record", async () => {
    const { service, minted, audited } = minting();
    const reply = await service.mint(
      TENANT,
      { roles: ["agent_rw"], subject: "user-7", unscoped: "none" },
      "ops",
    );
    expect(minted[0]).toMatchObject({ subject: "user-7", unscoped: "none" });
    expect(reply).toMatchObject({ subject: "user-7", unscoped: "none" });
    expect(audited[0]?.details).toMatchObject({ subject: "user-7", unscoped: "none" });
  });

  test("a role the library lacks, or unscoped without subject, is a 422 before anything is signed", async () => {
    const { service, log } = minting();
    await expect(service.mint(TENANT, { roles: ["auditor"] }, "ops")).rejects.toBeInstanceOf(
      ValidationFailed,
    );
    await expect(service.mint(TENANT, { roles: ["agent_rw"], unscoped: "read" }, "ops")).rejects.toThrow(
      "unscoped: only with subject",
    );
    expect(log).toEqual([]);
  });
});
