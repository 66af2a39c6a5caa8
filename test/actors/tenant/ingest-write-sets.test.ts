/**
 * How a delivery's events reach the vault (actors/tenant/ingest/ingest.ts): an event's dedupe
 * record and connector state commit in the write set of its last entry, not in a set of their own;
 * an event of no drafts writes them alone; a refused draft writes no dedupe record (the event is a
 * dead letter). A redelivery after a restart is a duplicate either way.
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

/** A tenant actor whose vault records every write set it is given. */
function recordingTenant(dir: string) {
  const sets: WriteSet[] = [];
  class RecordingVault extends TenantVault {
    override write(set: WriteSet): Promise<void> {
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

function event(id: string, drafts: Array<{ content: string; object_key?: string }>): IngestItem {
  return {
    event: { event_id: id, event_type: "t", payload: {} },
    result: {
      ok: true,
      drafts: drafts.map(({ content, object_key }) => ({ draft: { category: "fact", content }, object_key })),
    },
    state: [[`cursor/${id}`, id]],
  };
}

const delivery: Delivery = {
  source: "data",
  headers: {},
  items: [
    event("ev-two", [{ content: "first of two" }, { content: "second of two" }]),
    event("ev-object", [{ content: "about an object", object_key: "deal:7" }]),
    event("ev-empty", []),
  ],
};

const dedupeOf = (sets: WriteSet[], key: string) => sets.filter((s) => s.dedupe?.key.includes(key));

describe("a delivery's write sets", () => {
  test("each event's dedupe record and state ride with its last entry; an event of no drafts writes them alone", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mrt-ingest-sets-"));
    dirs.push(dir);
    const { tenant, sets, stop } = recordingTenant(dir);
    const summary = await tenant.ask({ type: "webhook.ingest", delivery });
    expect(summary).toMatchObject({ accepted: 3, duplicates: 0, dead_lettered: [] });
    expect(summary.entries).toHaveLength(3);

    const [two] = dedupeOf(sets, "ev-two");
    expect(dedupeOf(sets, "ev-two")).toHaveLength(1);
    expect(two!.created.map((e) => e.entry.content)).toEqual(["second of two"]);
    expect(two!.dedupe!.record).toMatchObject({ entries: summary.entries.slice(0, 2) });
    expect(two!.state).toEqual([["cursor/ev-two", "ev-two"]]);

    const [object] = dedupeOf(sets, "ev-object");
    expect(object!.created.map((e) => e.entry.content)).toEqual(["about an object"]);
    expect(object!.objects).toEqual([["deal:7", summary.entries[2]!]]);

    const [empty] = dedupeOf(sets, "ev-empty");
    expect(empty!.entries).toEqual([]);
    expect(empty!.state).toEqual([["cursor/ev-empty", "ev-empty"]]);
    // One set an entry (three), plus the empty event's: no set of a dedupe record alone otherwise.
    expect(sets.filter((s) => s.dedupe || s.created.length > 0)).toHaveLength(4);
    await stop();

    const again = recordingTenant(dir);
    expect(await again.tenant.ask({ type: "webhook.ingest", delivery })).toMatchObject({
      accepted: 0,
      duplicates: 3,
      entries: [],
    });
    await again.stop();
  });

  test("a refused draft makes the event a dead letter: no dedupe record rides with the entries before it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mrt-ingest-sets-"));
    dirs.push(dir);
    const { tenant, sets, stop } = recordingTenant(dir);
    const refused = event("ev-bad", [{ content: "fine" }, { content: "" }]);
    const summary = await tenant.ask({ type: "webhook.ingest", delivery: { ...delivery, items: [refused] } });
    expect(summary).toMatchObject({ accepted: 0, dead_lettered: ["ev-bad"] });
    const written = sets.filter((s) => s.created.length > 0);
    expect(written.map((s) => s.dedupe)).toEqual([undefined]);
    expect(dedupeOf(sets, "ev-bad")).toHaveLength(1); // the dead letter's own set
    expect(dedupeOf(sets, "ev-bad")[0]!.deadLetters).toHaveLength(1);
    await stop();
  });
});
