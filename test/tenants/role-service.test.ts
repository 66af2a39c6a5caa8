/** RoleService (src/tenants/role-service.ts) on fakes: each change through the system actor, then audited. */
import { describe, expect, test } from "bun:test";
import type { SystemProtocol } from "../../src/protocols/system-protocol.ts";
import type { ActorRef } from "../../src/runtime/actor-system.ts";
import { RoleService } from "../../src/tenants/role-service.ts";
import { auditRecorder } from "../helpers/audit-recorder.ts";

const TENANT = "01JTENANT0000000000000000A";

function roles(replaced: boolean) {
  const log: string[] = [];
  const recorder = auditRecorder(log);
  const system = {
    async ask(msg: { type: string; role?: { name: string; permissions: string[] }; name?: string }) {
      log.push(`ask ${msg.type}`);
      if (msg.type === "role.put") return { role: { ...msg.role, description: "" }, replaced };
      return { deleted: msg.name };
    },
  } as unknown as ActorRef<SystemProtocol>;
  const service = new RoleService({ tenants: { roles: () => [] }, system, audit: recorder.audit });
  return { service, log, audited: recorder.audited };
}

describe("RoleService", () => {
  test("a new role is created, then audited as created; a known one as replaced", async () => {
    for (const replaced of [false, true]) {
      const { service, log, audited } = roles(replaced);
      const result = await service.put(TENANT, { name: "auditor", permissions: ["memory:read"] }, "ops");
      expect(result.replaced).toBe(replaced);
      expect(log).toEqual([
        "ask role.put",
        `audit role.${replaced ? "replaced" : "created"}`,
        "audit committed",
      ]);
      expect(audited[0]).toMatchObject({ target: "auditor", details: { permissions: ["memory:read"] } });
    }
  });

  test("a delete is audited after the system actor deleted it", async () => {
    const { service, log, audited } = roles(false);
    expect(await service.delete(TENANT, "auditor", "ops")).toEqual({ deleted: "auditor" });
    expect(log).toEqual(["ask role.delete", "audit role.deleted", "audit committed"]);
    expect(audited[0]).toEqual({
      action: "role.deleted",
      sub: "ops",
      tenant_id: TENANT,
      target: "auditor",
      details: {},
    });
  });
});
