/**
 * The disk reserve (MEMORY_RUNTIME_DISK_RESERVE_MB, src/vault/disk-space.ts): writes that add data
 * are refused 507 while the data directory's filesystem has less than the reserve free, so LMDB
 * never meets a full disk; reads, denials (bounded, and the audit must not be lost) and erasures
 * (they free space) go on; the free space is read again at most every 100 ms, so writes resume
 * without a restart once space is freed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InsufficientStorage } from "../../src/errors/domain-errors.ts";
import { DiskSpace } from "../../src/vault/disk-space.ts";
import { denialsOf } from "../helpers/api.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";
import { setSecrets } from "../helpers/webhooks.ts";
import { jobEvent } from "../soak/payloads.ts";

const MIB = 1024 * 1024;

describe("DiskSpace", () => {
  /** A filesystem whose free space the test sets, and a clock it moves. */
  function fakeDisk(reserveMb: number) {
    const state = { freeMb: 1000, now: 0, reads: 0 };
    const statfs = () => {
      state.reads++;
      return { bavail: state.freeMb * 256, bsize: 4096 };
    };
    return { state, disk: new DiskSpace("/data", reserveMb * MIB, () => state.now, statfs) };
  }

  test("refuses while less than the reserve is free, and takes writes again once space is freed", () => {
    const { state, disk } = fakeDisk(64);
    expect(() => disk.assertRoom()).not.toThrow();
    state.freeMb = 63;
    state.now += 100;
    expect(() => disk.assertRoom()).toThrow(InsufficientStorage);
    state.freeMb = 500;
    state.now += 100;
    expect(() => disk.assertRoom()).not.toThrow();
  });

  test("reads the filesystem at most once per 100 ms", () => {
    const { state, disk } = fakeDisk(64);
    for (let i = 0; i < 50; i++) disk.assertRoom();
    expect(state.reads).toBe(1);
    state.freeMb = 10;
    state.now += 99;
    expect(() => disk.assertRoom()).not.toThrow();
    state.now += 1;
    expect(() => disk.assertRoom()).toThrow(InsufficientStorage);
    expect(state.reads).toBe(2);
  });

  test("a reserve of 0 never reads the filesystem; an unreadable one leaves LMDB's errors as the guard", () => {
    const { state, disk } = fakeDisk(0);
    state.freeMb = 0;
    expect(() => disk.assertRoom()).not.toThrow();
    expect(state.reads).toBe(0);
    const unreadable = new DiskSpace(
      "/nowhere",
      64 * MIB,
      () => 0,
      () => {
        throw new Error("ENOSYS");
      },
    );
    expect(() => unreadable.assertRoom()).not.toThrow();
  });
});

describe("a reserve larger than the free space of the test's disk", () => {
  const own = mkdtempSync(join(tmpdir(), "mrt-reserve-"));
  let h: Harness;
  let tenant: { tenant_id: string; token: string };
  let kept: string;
  /** The erasure test's own tenant and entry: erasing `kept` would change what the other test reads. */
  let erasing: { tenant_id: string; token: string };
  let toErase: string;

  beforeAll(async () => {
    h = await startHarness({ dataDir: join(own, "data"), env: { MEMORY_RUNTIME_DISK_RESERVE_MB: "0" } });
    tenant = await h.createTenant();
    setSecrets(h, tenant.tenant_id, { DATA_WEBHOOK_TOKEN: "reserve-token" });
    const written = await h.json("POST", "/memory/facts", { token: tenant.token, body: { content: "kept" } });
    expect(written.status).toBe(201);
    kept = written.body.id;
    erasing = await h.createTenant();
    const doomed = await h.json("POST", "/memory/facts", {
      token: erasing.token,
      body: { content: "erased" },
    });
    expect(doomed.status).toBe(201);
    toErase = doomed.body.id;
    // 1 TiB: more than any test machine has free.
    h.env.MEMORY_RUNTIME_DISK_RESERVE_MB = "1048576";
    await h.restart();
  });
  afterAll(async () => {
    await h.close();
    rmSync(own, { recursive: true, force: true });
  });

  test("every write that adds data is 507 with nothing written; reads and denials go on", async () => {
    const full = async (res: Response) => {
      const body = await expectProblem(res, 507, "insufficient_storage");
      expect(body.detail).toContain("disk is nearly full");
      expect(JSON.stringify(body)).not.toContain(own);
    };
    await full(await h.call("POST", "/memory/facts", { token: tenant.token, body: { content: "refused" } }));
    await full(
      await h.call("POST", "/memory/facts/batch", {
        token: tenant.token,
        body: { entries: [{ content: "refused 1" }, { content: "refused 2" }] },
      }),
    );
    await full(
      await h.call("POST", `/webhooks/data/${tenant.tenant_id}`, {
        headers: { authorization: "Bearer reserve-token" },
        body: jobEvent("reserve-run"),
      }),
    );
    await full(await h.call("POST", "/admin/tenants", { token: h.adminToken, body: { name: "No disk" } }));
    await full(
      await h.call("POST", `/admin/roles/${tenant.tenant_id}`, {
        token: h.adminToken,
        body: { name: "reader", permissions: ["memory:read"] },
      }),
    );
    expect((await h.call("GET", `/memory/facts/${kept}`, { token: tenant.token })).status).toBe(200);
    const page = await h.json("GET", "/memory/facts?limit=500", { token: tenant.token });
    expect(page.body.items.map((e: { id: string }) => e.id)).toEqual([kept]);
    const noRoles = await h.mint(tenant.tenant_id, [], "reserve-denied");
    await expectProblem(await h.call("GET", "/memory/facts", { token: noRoles }), 403, "forbidden");
    expect((await denialsOf(h, tenant.tenant_id)).map((d) => d.sub)).toEqual(["reserve-denied"]);
  });

  test("an erasure goes through (it frees space)", async () => {
    const erased = await h.json("POST", `/admin/tenants/${erasing.tenant_id}/erase`, {
      token: h.adminToken,
      body: { ids: [toErase] },
    });
    expect({ status: erased.status, erased: erased.body.erased.length }).toEqual({ status: 200, erased: 1 });
    expect((await h.call("GET", `/memory/facts/${toErase}`, { token: erasing.token })).status).toBe(410);
  });
});
