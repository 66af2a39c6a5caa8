/**
 * The system store's applied `MR_SYSTEM` sequence (cluster mode, docs/cluster.md "Cluster-wide
 * system state"): committed with each command's effect, so a restart resumes exactly after the
 * last command whose effect is on disk; and a store's whole content replaced by a snapshot's.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appliedSeqIn, SystemStore } from "../../src/vault/system-store.ts";
import { denialRecord as denial, tenantRecord as tenant } from "../fakes/system-records.ts";
import { ROOT } from "../helpers/spawn.ts";

const T1 = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
const T2 = "01JDB2X6J3KQ5W8Z3M4N7P9R2T";
const T3 = "01JDB2X6J3KQ5W8Z3M4N7P9R2V";
/** Commands the writer applies (at least) before each kill. */
const COMMANDS_PER_ROUND = 300;

const opened: SystemStore[] = [];
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mrt-applied-"));
  dirs.push(dir);
  return dir;
}

function openStore(dir: string, auditLimit = 1000): SystemStore {
  const store = new SystemStore(dir, auditLimit);
  opened.push(store);
  return store;
}

afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const adminEvent = (n: number) => ({
  at: new Date(Date.UTC(2026, 10, 21, 10, 0, n)).toISOString(),
  action: "role.put",
  sub: "operator",
  tenant_id: null,
  target: `role-${n}`,
  details: { n },
});

/** Runs the writer on `dir` until it reports `COMMANDS_PER_ROUND` more commands, then kills it with SIGKILL. */
async function applyThenKill(dir: string): Promise<{ from: number; reported: number }> {
  const proc = Bun.spawn([process.execPath, "run", join(ROOT, "test/vault/applied-seq-writer.ts"), dir], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const deadline = setTimeout(() => proc.kill(9), 20_000);
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let from = 0;
  let reported = 0;
  try {
    while (reported < from + COMMANDS_PER_ROUND || from === 0) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`writer ended early: ${text}`);
      text += decoder.decode(value, { stream: true });
      from = Number(/from (\d+)/.exec(text)?.[1] ?? 0);
      for (const match of text.matchAll(/applied (\d+)/g)) reported = Math.max(reported, Number(match[1]));
    }
  } finally {
    proc.kill(9);
    clearTimeout(deadline);
    await proc.exited;
  }
  return { from, reported };
}

describe("the applied sequence", () => {
  test("a kill -9 at any point leaves exactly the effects of the commands up to the stored sequence", async () => {
    const dir = tempDir();
    let expectedFrom = 1;
    for (let round = 0; round < 3; round++) {
      const { from, reported } = await applyThenKill(dir);
      // The writer resumed right after the last command whose effect is on disk.
      expect(from).toBe(expectedFrom);
      const store = openStore(dir);
      const applied = store.appliedSeq();
      expect(applied).toBeGreaterThanOrEqual(reported);
      const events = store.listAdminEvents(1_000_000).items;
      // One admin event per command, each exactly once, none beyond the stored sequence.
      expect(events.length).toBe(applied);
      expect(events.map((e) => e.details.seq)).toEqual(
        Array.from({ length: applied }, (_, i) => applied - i),
      );
      expect(store.tenantCount()).toBe(Math.floor(applied / 5));
      await store.close();
      opened.splice(opened.indexOf(store), 1);
      expectedFrom = applied + 1;
    }
  }, 60_000);

  test("markApplied alone moves the sequence; a fresh store is at 0 and empty", async () => {
    const store = openStore(tempDir());
    expect(store.appliedSeq()).toBe(0);
    expect(store.isEmpty()).toBe(true);
    await store.markApplied(7);
    expect(store.appliedSeq()).toBe(7);
    await store.createTenant(tenant(T1, "Acme"));
    expect(store.isEmpty()).toBe(false);
  });
});

describe("replacing the content by a snapshot", () => {
  async function populated(dir: string): Promise<SystemStore> {
    const store = openStore(dir, 3);
    await store.createTenant(tenant(T1, "Acme"));
    await store.createTenant(tenant(T2, "Globex"));
    await store.putRole(T1, {
      name: "reader",
      permissions: ["memory:read"],
      description: "",
      builtin: false,
    });
    for (let n = 0; n < 5; n++) await store.recordDenial(denial(T1, n));
    for (let n = 0; n < 4; n++) await store.recordAdminEvent(adminEvent(n));
    await store.markApplied(42);
    return store;
  }

  test("a backup holds the applied sequence; loading it gives the same tenants, roles and logs, paged alike", async () => {
    const source = await populated(tempDir());
    const backup = tempDir();
    await source.backup(backup);
    expect(await appliedSeqIn(backup)).toBe(42);

    const target = openStore(tempDir(), 3);
    await target.createTenant(tenant(T3, "Initech"));
    await target.putRole(T3, {
      name: "writer",
      permissions: ["memory:write"],
      description: "",
      builtin: false,
    });
    await target.recordDenial(denial(T3, 1));
    expect(target.getTenant(T3)?.name).toBe("Initech");
    await target.replaceWith(backup);

    expect(target.appliedSeq()).toBe(42);
    expect(target.getTenant(T3)).toBeUndefined();
    expect(target.tenantIdByName("initech")).toBeUndefined();
    expect(target.getRole(T3, "writer")).toBeUndefined();
    expect(target.listDenials(T3, 10).items).toEqual([]);
    expect(target.listTenants()).toEqual(source.listTenants());
    expect(target.tenantCount()).toBe(2);
    expect(target.tenantIdByName("acme")).toBe(T1);
    expect(target.getRole(T1, "reader")).toEqual(source.getRole(T1, "reader")!);
    const pages = (store: SystemStore) => {
      const first = store.listDenials(T1, 2);
      return [first, store.listDenials(T1, 2, first.nextBefore)];
    };
    expect(pages(target)).toEqual(pages(source));
    expect(target.listAdminEvents(3)).toEqual(source.listAdminEvents(3));

    // Both go on alike: the audit sequences and the denial bound (3) continue from the snapshot's.
    for (const store of [source, target]) {
      await store.recordDenial(denial(T1, 9));
      await store.recordAdminEvent(adminEvent(9));
    }
    expect(target.listDenials(T1, 10)).toEqual(source.listDenials(T1, 10));
    expect(target.listDenials(T1, 10).items.length).toBe(3);
    expect(target.listAdminEvents(10)).toEqual(source.listAdminEvents(10));
  });

  test("loading nothing empties the store", async () => {
    const store = await populated(tempDir());
    await store.replaceWith(undefined);
    expect(store.isEmpty()).toBe(true);
    expect(store.appliedSeq()).toBe(0);
    expect(store.getTenant(T1)).toBeUndefined();
    expect(store.tenantCount()).toBe(0);
    expect(store.listAdminEvents(10).items).toEqual([]);
  });
});
