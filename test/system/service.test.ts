/** SystemService (src/system/service.ts) on fakes: a reload, then its audit record (never a secret). */
import { describe, expect, test } from "bun:test";
import { SystemService } from "../../src/system/service.ts";
import { auditRecorder } from "../helpers/audit-recorder.ts";

function system(secrets: { reloaded: boolean; tenants_changed?: number; error?: string }, crm: boolean) {
  const log: string[] = [];
  const recorder = auditRecorder(log);
  const service = new SystemService({
    async reload() {
      log.push("reload");
      return { secrets, crm_mapping: { reloaded: crm } };
    },
    audit: recorder.audit,
  });
  return { service, log, audited: recorder.audited };
}

describe("SystemService", () => {
  test("a reload is audited after it, as what it did", async () => {
    const { service, log, audited } = system({ reloaded: true, tenants_changed: 2 }, true);
    await service.reload("ops");
    expect(log).toEqual(["reload", "audit secrets.reloaded", "audit committed"]);
    expect(audited[0]).toEqual({
      action: "secrets.reloaded",
      sub: "ops",
      tenant_id: null,
      target: null,
      details: { secrets: "reloaded", tenants_changed: 2, crm_mapping: "reloaded" },
    });
  });

  test("a refused secrets file and CRM mapping, and no file at all, are told apart", async () => {
    const refused = system({ reloaded: false, error: "not JSON" }, false);
    await refused.service.reload("ops");
    expect(refused.audited[0]?.details).toEqual({
      secrets: "refused",
      tenants_changed: 0,
      crm_mapping: "refused",
    });
    expect(JSON.stringify(refused.audited)).not.toContain("not JSON");
    const none = system({ reloaded: false }, true);
    await none.service.reload("ops");
    expect(none.audited[0]?.details).toMatchObject({ secrets: "no file" });
  });
});
