import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canonicalJson, sha8 } from "../../../../actors/tenant/memory/entry-id.ts";
import { identityText, legacyIdentity } from "../../../../actors/tenant/memory/entry-identity.ts";
import { EntryStore } from "../../../../actors/tenant/memory/entry-store.ts";
import {
  followsCurrentRule,
  forgetLegacyCheck,
  LegacyIds,
} from "../../../../actors/tenant/memory/legacy-ids.ts";
import type { StoredEntry } from "../../../../src/memory/temporal.ts";
import type { Entry } from "../../../../src/models/entry.ts";
import { TenantVault } from "../../../../src/vault/tenant-vault.ts";

const TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
const AT = "2026-11-01T10:00:00.000Z";
const dirs: string[] = [];

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mrt-legacy-"));
  dirs.push(dir);
  return dir;
}

function entry(content: string, id = ""): Entry {
  return {
    id,
    tenant_id: TENANT,
    category: "fact",
    content,
    tags: [],
    valid_from: AT,
    valid_to: null,
    agent_id: "a",
    recorded_at: AT,
    expired_at: null,
    invalidated_at: null,
    created_by: "a",
    origin: { kind: "agent", sub: "a" },
    trust: "agent",
  };
}

/** An entry at its id under the current rule (slot `slot` of its chain). */
function current(content: string, slot = 0): Entry {
  const e = entry(content);
  const text = identityText(e);
  return { ...e, id: sha8(slot === 0 ? text : `${text}#${slot}`) };
}

/** An entry at its id under the earlier rule. */
function legacy(content: string): Entry {
  const e = entry(content);
  return { ...e, id: sha8(canonicalJson(legacyIdentity(e))) };
}

async function writeEntry(vault: TenantVault, e: Entry): Promise<void> {
  const s: StoredEntry = { seq: vault.nextSeq(), entry: e };
  await vault.write({
    entries: [s],
    created: [s],
    changes: [{ type: "entry.created", id: e.id, category: "fact", by: "a" }],
  });
}

async function check(dir: string, write?: (vault: TenantVault) => Promise<unknown>): Promise<boolean> {
  const vault = new TenantVault(dir);
  try {
    await write?.(vault);
    const ids = new LegacyIds(vault, new EntryStore(vault), sha8);
    ids.close();
    return ids.present;
  } finally {
    await vault.close();
  }
}

describe("followsCurrentRule", () => {
  test("knows ids of the current rule, at the head of their chain or further down, and not legacy ones", () => {
    expect(followsCurrentRule({ seq: 1, entry: current("x") }, sha8)).toBe(true);
    expect(followsCurrentRule({ seq: 1, entry: current("x", 2) }, sha8)).toBe(true);
    expect(followsCurrentRule({ seq: 1, entry: legacy("x") }, sha8)).toBe(false);
  });
});

describe("LegacyIds", () => {
  test("a new vault, and one of current-rule entries only, need no legacy lookup", async () => {
    const dir = tempDir();
    expect(await check(dir)).toBe(false);
    expect(await check(dir, (v) => writeEntry(v, current("written by this version")))).toBe(false);
    expect(await check(dir)).toBe(false);
  });

  test("entries of the earlier rule written after the last check are found, and the flag stays", async () => {
    const dir = tempDir();
    expect(await check(dir)).toBe(false);
    // What an older runtime (or a replay) adds while no memory slice is open.
    const vault = new TenantVault(dir);
    await writeEntry(vault, legacy("stored before the upgrade"));
    await vault.close();
    expect(await check(dir)).toBe(true);
    expect(await check(dir)).toBe(true);
  });

  test("an import forgets the check: entries it brought are checked at the next open", async () => {
    const dir = tempDir();
    expect(
      await check(dir, async (v) => {
        await writeEntry(v, legacy("imported"));
      }),
    ).toBe(true);
    const other = tempDir();
    expect(await check(other, (v) => writeEntry(v, current("ours")))).toBe(false);
    const vault = new TenantVault(other);
    const ids = new LegacyIds(vault, new EntryStore(vault), sha8);
    await forgetLegacyCheck(vault);
    await writeEntry(vault, legacy("imported later"));
    ids.close();
    await vault.close();
    expect(await check(other)).toBe(true);
  });

  test("the checked position moves with this slice's writes, so a restart after a crash rechecks only a tail", async () => {
    const dir = tempDir();
    expect(await check(dir)).toBe(false);
    const vault = new TenantVault(dir);
    const ids = new LegacyIds(vault, new EntryStore(vault), sha8);
    await writeEntry(vault, current("one"));
    await writeEntry(vault, current("two"));
    ids.wrote(1);
    expect(vault.tablesOf("vault").meta.get("ids:checked")).toBe(0);
    ids.wrote(5000);
    await vault.tablesOf("vault").meta.flushed;
    expect(vault.tablesOf("vault").meta.get("ids:checked")).toBe(2);
    // A crash: no close() records the end; an entry of the earlier rule lands after the position.
    await writeEntry(vault, legacy("after the position"));
    await vault.close();
    expect(await check(dir)).toBe(true);
  });
});
