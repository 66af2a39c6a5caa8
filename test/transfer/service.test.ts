/**
 * TransferService (src/transfer/service.ts) on fakes: an export is audited before its stream is
 * handed out, and cancelled when the audit fails; an import is audited once it is done.
 */
import { describe, expect, test } from "bun:test";
import type { ExportImport } from "../../src/transfer/export-import.ts";
import { TransferService } from "../../src/transfer/service.ts";
import { auditRecorder } from "../helpers/audit-recorder.ts";

const TENANT = "01JTENANT0000000000000000A";
const counts = { entries: 2 };

function transfer(opts: { fail?: Error; importFails?: boolean } = {}) {
  const log: string[] = [];
  const recorder = auditRecorder(log, opts);
  let cancelled = false;
  const exportImport = {
    async export(tenantId: string, scope: unknown) {
      log.push(`export ${tenantId} ${JSON.stringify(scope)}`);
      const stream = new ReadableStream<Uint8Array>({
        cancel() {
          cancelled = true;
        },
      });
      return { counts, stream };
    },
    async import(tenantId: string) {
      log.push(`import ${tenantId}`);
      if (opts.importFails) throw new Error("line 3 fails its schema");
      return { source_tenant_id: "01JSOURCE000000000000000000", imported: counts, took_ms: 5 };
    },
  } as unknown as ExportImport;
  const service = new TransferService({ exportImport, audit: recorder.audit });
  return { service, log, audited: recorder.audited, cancelled: () => cancelled };
}

describe("TransferService", () => {
  test("an export is audited, with its scope, before the stream is handed out", async () => {
    const { service, log, audited, cancelled } = transfer();
    const exported = await service.export(TENANT, { subject: "user-7" }, "ops");
    expect(exported.counts as unknown).toEqual(counts);
    expect(log).toEqual([
      `export ${TENANT} {"subject":"user-7"}`,
      "audit tenant.exported",
      "audit committed",
    ]);
    expect(audited[0]).toEqual({
      action: "tenant.exported",
      sub: "ops",
      tenant_id: TENANT,
      target: null,
      details: { counts, scope: { subject: "user-7" } },
    });
    expect(cancelled()).toBe(false);
  });

  test("an unscoped export's record names no scope", async () => {
    const { service, audited } = transfer();
    await service.export(TENANT, {}, "ops");
    expect(audited[0]?.details).toEqual({ counts });
  });

  test("an export whose audit fails is cancelled and fails", async () => {
    const { service, cancelled } = transfer({ fail: new Error("system store full") });
    await expect(service.export(TENANT, {}, "ops")).rejects.toThrow("system store full");
    expect(cancelled()).toBe(true);
  });

  test("an import is audited once done; a failed one is not", async () => {
    const { service, log, audited } = transfer();
    const reply = await service.import(TENANT, null, "ops");
    expect(log).toEqual([`import ${TENANT}`, "audit tenant.imported", "audit committed"]);
    expect(audited[0]).toEqual({
      action: "tenant.imported",
      sub: "ops",
      tenant_id: TENANT,
      target: reply.source_tenant_id,
      details: { imported: counts, took_ms: 5 },
    });
    const failing = transfer({ importFails: true });
    await expect(failing.service.import(TENANT, null, "ops")).rejects.toThrow("line 3");
    expect(failing.audited).toEqual([]);
  });
});
