/**
 * EraseService (src/erase/service.ts) on fakes: a real erasure is audited after it (counts and the
 * kinds of criteria, never the subject, which is the very data erased); a dry run is not.
 */
import { describe, expect, test } from "bun:test";
import { EraseService } from "../../src/erase/service.ts";
import type { EraseReport, EraseRequest } from "../../src/models/erase.ts";
import { auditRecorder } from "../helpers/audit-recorder.ts";

const TENANT = "01JTENANT0000000000000000A";

function eraser(dryRun: boolean) {
  const log: string[] = [];
  const recorder = auditRecorder(log);
  const report = {
    erased: [{ id: "aaaaaaaa", category: "fact" }],
    dead_letters_removed: 2,
    dry_run: dryRun,
  } as unknown as EraseReport;
  const service = new EraseService({
    async eraseEntries(tenantId, request, by) {
      log.push(`erase ${tenantId} ${JSON.stringify(request)} ${by}`);
      return report;
    },
    audit: recorder.audit,
  });
  return { service, log, audited: recorder.audited, report };
}

describe("EraseService", () => {
  test("an erasure is audited after it, without the subject", async () => {
    const { service, log, audited, report } = eraser(false);
    const request = { subject: "jane@example.com", tags: ["crm"] } as EraseRequest;
    expect(await service.erase(TENANT, request, "ops")).toBe(report);
    expect(log).toEqual([
      `erase ${TENANT} ${JSON.stringify(request)} ops`,
      "audit entries.erased",
      "audit committed",
    ]);
    expect(audited[0]).toEqual({
      action: "entries.erased",
      sub: "ops",
      tenant_id: TENANT,
      target: null,
      details: { entries: 1, dead_letters: 2, by: ["subject", "tags"] },
    });
    expect(JSON.stringify(audited)).not.toContain("jane");
  });

  test("a dry run is answered without an audit record", async () => {
    const { service, log } = eraser(true);
    await service.erase(TENANT, { ids: ["aaaaaaaa"], dry_run: true } as EraseRequest, "ops");
    expect(log).toHaveLength(1);
  });
});
