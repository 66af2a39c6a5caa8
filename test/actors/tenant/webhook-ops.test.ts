/**
 * The tenant actor's webhook operations (actors/tenant/ingest/webhook-ops.ts, hold.ts): what each
 * write set holds (a held delivery is one set; a released event's entry, dedupe record, log record
 * and release are one set: no extra commit an event), a replay raced by another writes once, and
 * a process that dies between two released events loses none and applies none twice.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tenantBehaviour } from "../../../actors/tenant/tenant.ts";
import type { Delivery, IngestItem } from "../../../src/ingest/ingest-item.ts";
import type { TenantStorage } from "../../../src/ports/runtime-ports.ts";
import type { TenantProtocol } from "../../../src/protocols/tenant-protocol.ts";
import { ActorSystem } from "../../../src/runtime/actor-system.ts";
import { ManualClock } from "../../../src/runtime/clock.ts";
import { TenantVault } from "../../../src/vault/tenant-vault.ts";
import type { WriteSet } from "../../../src/vault/write-set.ts";

const TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mrt-webhook-ops-"));
  dirs.push(dir);
  return dir;
}

/**
 * A tenant actor whose vault records every write set, and throws (as a process dying would stop
 * it) on the write of the `crashAt`-th release of a held event, before anything of it is queued.
 */
function tenantOn(dir: string, crashAt?: number) {
  const sets: WriteSet[] = [];
  let releases = 0;
  class RecordingVault extends TenantVault {
    override write(set: WriteSet): Promise<void> {
      if (set.webhooks?.released?.length && ++releases === crashAt) throw new Error("the process died here");
      sets.push(set);
      return super.write(set);
    }
  }
  const storage: TenantStorage = {
    openVault: (_id, path, options) => new RecordingVault(path, options),
    sealImport: async () => undefined,
  };
  const clock = new ManualClock();
  const system = new ActorSystem({ clock, idleMs: Number.POSITIVE_INFINITY });
  const kind = system.kind<TenantProtocol>("tenant", (id) =>
    tenantBehaviour(id, { dataDir: dir, storage, clock, dims: 8, tellSelf: () => undefined }),
  );
  return { tenant: kind.ref(TENANT), sets, stop: () => system.stopAll() };
}

function item(id: string, content = `content of ${id}`): IngestItem {
  return {
    event: { event_id: id, event_type: "fact", payload: { id, content } },
    result: { ok: true, drafts: [{ draft: { category: "fact", content } }] },
  };
}

const delivery = (items: IngestItem[], state?: Array<[string, unknown]>): Delivery => {
  const last = items[items.length - 1];
  if (last && state) last.state = state;
  return { source: "data", headers: { "user-agent": "test" }, items, requestId: "req-1" };
};

/** Releases every held event of `data` as the service does: next, map (here: the stored payload), apply. */
async function releaseAll(tenant: ReturnType<typeof tenantOn>["tenant"]) {
  await tenant.ask({ type: "source.resume", source: "data" });
  for (let i = 0; i < 100; i++) {
    const step = await tenant.ask({ type: "held.next", source: "data" });
    if (!step.next) return step;
    const { event_id, payload } = step.next;
    const content = (payload as { content: string }).content;
    await tenant.ask({
      type: "held.apply",
      source: "data",
      seq: step.next.seq,
      item: item(event_id, content),
      requestId: null,
    });
  }
  throw new Error("the release did not end");
}

describe("holding and releasing, write set by write set", () => {
  test("a held delivery is one write set: its events, their log records and the connector's position", async () => {
    const { tenant, sets, stop } = tenantOn(tempDir());
    await tenant.ask({ type: "source.pause", source: "data" });
    sets.length = 0;
    const reply = await tenant.ask({
      type: "webhook.ingest",
      delivery: delivery([item("h-1"), item("h-2")], [["cursor", 7]]),
    });
    expect(reply).toMatchObject({ paused: true, held: ["h-1", "h-2"], accepted: 0, entries: [] });
    expect(sets).toHaveLength(1);
    const [set] = sets;
    expect(set!.entries).toEqual([]);
    expect(set!.dedupe).toBeUndefined();
    expect(set!.webhooks?.held?.map((h) => [h.event_id, h.seq])).toEqual([
      ["h-1", 1],
      ["h-2", 2],
    ]);
    expect(set!.webhooks?.log?.map(([, r]) => r.outcome)).toEqual(["held", "held"]);
    expect(set!.state).toEqual([["cursor", 7]]);
    await stop();
  });

  test("a released event's entry, dedupe record, log record and release commit in one set", async () => {
    const { tenant, sets, stop } = tenantOn(tempDir());
    await tenant.ask({ type: "source.pause", source: "data" });
    await tenant.ask({ type: "webhook.ingest", delivery: delivery([item("r-1")]) });
    sets.length = 0;
    expect(await releaseAll(tenant)).toEqual({ status: "active", resuming: false });
    const withEntries = sets.filter((s) => s.created.length > 0);
    expect(withEntries).toHaveLength(1);
    const [released] = withEntries;
    expect(released!.dedupe?.key).toContain("r-1");
    expect(released!.webhooks?.released).toEqual([{ source: "data", seq: 1, event_id: "r-1" }]);
    expect(released!.webhooks?.log?.map(([, r]) => [r.outcome, r.via])).toEqual([["accepted", "resume"]]);
    // Besides the entry's set: the resume's state and the turn to active; no set of the log alone.
    expect(sets.filter((s) => s.webhooks?.log && s.created.length === 0)).toEqual([]);
    await stop();
  });

  test("an event arriving while a resume runs is held and released after those before it", async () => {
    const { tenant, stop } = tenantOn(tempDir());
    await tenant.ask({ type: "source.pause", source: "data" });
    await tenant.ask({ type: "webhook.ingest", delivery: delivery([item("o-1")]) });
    await tenant.ask({ type: "source.resume", source: "data" });
    const first = await tenant.ask({ type: "held.next", source: "data" });
    expect(first.next?.event_id).toBe("o-1");
    // Arrives mid-resume: still held, behind o-1.
    expect(await tenant.ask({ type: "webhook.ingest", delivery: delivery([item("o-2")]) })).toMatchObject({
      paused: true,
      held: ["o-2"],
    });
    await tenant.ask({
      type: "held.apply",
      source: "data",
      seq: first.next!.seq,
      item: item("o-1"),
      requestId: null,
    });
    const second = await tenant.ask({ type: "held.next", source: "data" });
    expect(second.next?.event_id).toBe("o-2");
    // Applying o-1 again finds it gone: nothing written twice.
    const again = await tenant.ask({
      type: "held.apply",
      source: "data",
      seq: first.next!.seq,
      item: item("o-1"),
      requestId: null,
    });
    expect(again).toEqual({ outcome: "gone", entries: [] });
    await stop();
  });

  test("paused again during a resume: the release stops and the rest stays held", async () => {
    const { tenant, stop } = tenantOn(tempDir());
    await tenant.ask({ type: "source.pause", source: "data" });
    await tenant.ask({ type: "webhook.ingest", delivery: delivery([item("s-1"), item("s-2")]) });
    await tenant.ask({ type: "source.resume", source: "data" });
    await tenant.ask({ type: "source.pause", source: "data" });
    expect(await tenant.ask({ type: "held.next", source: "data" })).toEqual({
      status: "paused",
      resuming: false,
    });
    expect((await tenant.ask({ type: "sources.figures" })).data).toMatchObject({
      held: 2,
      state: { status: "paused" },
    });
    await stop();
  });
});

describe("exactly once", () => {
  test("two replays of one dead letter in the mailbox together: the second writes nothing", async () => {
    const { tenant, sets, stop } = tenantOn(tempDir());
    const failed: IngestItem = {
      event: item("dl-1").event,
      result: { ok: false, reason: "tenant_suspended" },
    };
    await tenant.ask({ type: "webhook.ingest", delivery: delivery([failed]) });
    sets.length = 0;
    const resolve = () =>
      tenant.ask({ type: "deadletter.resolve", eventId: "dl-1", source: "data", item: item("dl-1") });
    const [a, b] = await Promise.all([resolve(), resolve()]);
    expect(a).toMatchObject({ status: "replayed" });
    expect(b).toEqual({ event_id: "dl-1", status: "replayed", entries: a.entries! });
    expect(sets.filter((s) => s.created.length > 0)).toHaveLength(1);
    expect(sets.filter((s) => s.deadLetters?.length)).toHaveLength(1);
    await stop();
  });

  test("a process dying between two released events: after the restart every held event is applied once", async () => {
    const dir = tempDir();
    const ids = ["x-1", "x-2", "x-3", "x-4", "x-5"];
    const before = tenantOn(dir, 3);
    await before.tenant.ask({ type: "source.pause", source: "data" });
    await before.tenant.ask({ type: "webhook.ingest", delivery: delivery(ids.map((id) => item(id))) });
    await expect(releaseAll(before.tenant)).rejects.toThrow("the process died here");
    await before.stop();

    const after = tenantOn(dir);
    const figures = await after.tenant.ask({ type: "sources.figures" });
    expect(figures.data).toMatchObject({ held: 3, state: { status: "paused", resuming: true } });
    // The upkeep is told which resume to continue.
    const purge = await after.tenant.ask({
      type: "webhooks.purge",
      now: Date.UTC(2026, 10, 21),
      retention: { deliveryLogDays: 30, deadLetterDays: 90 },
    });
    expect(purge.resuming).toEqual(["data"]);
    expect(await releaseAll(after.tenant)).toEqual({ status: "active", resuming: false });
    const { items } = await after.tenant.ask({
      type: "entry.list",
      category: "fact",
      limit: 100,
      validAt: Date.UTC(2030, 0, 1),
      asOf: Date.UTC(2030, 0, 1),
      includeEmbedding: false,
    });
    expect(items.map((e) => e.source?.event_id).sort()).toEqual(ids);
    // Redelivered by the platform now: every one a duplicate.
    const redelivered = await after.tenant.ask({
      type: "webhook.ingest",
      delivery: delivery(ids.map((id) => item(id))),
    });
    expect(redelivered).toMatchObject({ duplicates: 5, accepted: 0, paused: false });
    await after.stop();
  });
});
