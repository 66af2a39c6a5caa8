/**
 * Import objects' names and which of them a periodic snapshot makes useless
 * (src/cluster/import-objects.ts, src/cluster/import-ledger.ts).
 */
import { describe, expect, test } from "bun:test";
import { ImportLedger } from "../../src/cluster/import-ledger.ts";
import { importObjectName, parseImportObjectName } from "../../src/cluster/import-objects.ts";

const TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";

describe("import object names", () => {
  test("carry the partition, the epoch and the tenant, and parse back", () => {
    const name = importObjectName(7, 1234, TENANT, "u-1");
    expect(name).toBe(`07/1234/${TENANT}/u-1`);
    expect(parseImportObjectName(name)).toEqual({ partition: 7, epoch: 1234, tenantId: TENANT });
    // Two imports of one tenant under one epoch get two objects.
    expect(importObjectName(7, 1234, TENANT)).not.toBe(importObjectName(7, 1234, TENANT));
  });

  test("snapshot objects and other names are not import objects", () => {
    expect(parseImportObjectName(`07/1234/${TENANT}`)).toBeUndefined();
    expect(parseImportObjectName("07/1234/manifest")).toBeUndefined();
    expect(parseImportObjectName(`7/1234/${TENANT}/u`)).toBeUndefined();
    expect(parseImportObjectName(`07/x/${TENANT}/u`)).toBeUndefined();
  });
});

describe("import objects a snapshot covers", () => {
  // The snapshot of partition 7 at sequence 500, whose newest claim (epoch) is 300.
  const covered = (ledger: ImportLedger, name: string) => ledger.covered(name, 7, 300, 500);

  test("an older epoch's object: its writer was fenced out before the snapshot's epoch began", () => {
    const ledger = new ImportLedger();
    expect(covered(ledger, importObjectName(7, 120, TENANT))).toBe(true);
  });

  test("a newer epoch's object (a later owner's) and another partition's are kept", () => {
    const ledger = new ImportLedger();
    expect(covered(ledger, importObjectName(7, 900, TENANT))).toBe(false);
    expect(covered(ledger, importObjectName(8, 120, TENANT))).toBe(false);
    expect(covered(ledger, "07/500/manifest")).toBe(false);
  });

  test("the snapshot's own epoch: only objects whose record landed at or before the snapshot", () => {
    const ledger = new ImportLedger();
    const before = importObjectName(7, 300, TENANT);
    const at = importObjectName(7, 300, TENANT);
    const after = importObjectName(7, 300, TENANT);
    const uploading = importObjectName(7, 300, TENANT);
    ledger.landedAt(7, before, 410);
    ledger.landedAt(7, at, 500);
    ledger.landedAt(7, after, 501);
    expect(covered(ledger, before)).toBe(true);
    expect(covered(ledger, at)).toBe(true);
    expect(covered(ledger, after)).toBe(false);
    // Uploaded, its record not appended yet (or never): kept, a later owner deletes it.
    expect(covered(ledger, uploading)).toBe(false);
  });

  test("what a partition's ledger forgot (it stopped being served) is kept; settled entries go", () => {
    const ledger = new ImportLedger();
    const landed = importObjectName(7, 300, TENANT);
    const later = importObjectName(7, 300, TENANT);
    ledger.landedAt(7, landed, 410);
    ledger.landedAt(7, later, 600);
    ledger.settled(7, 500);
    expect(covered(ledger, landed)).toBe(false);
    expect(ledger.covered(later, 7, 300, 600)).toBe(true);
    ledger.forget(7);
    expect(ledger.covered(later, 7, 300, 600)).toBe(false);
  });
});
