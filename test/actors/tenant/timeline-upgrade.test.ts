/**
 * The one-time pass over a vault written before object timelines (actors/tenant/ingest/timeline-upgrade.ts):
 * a deal's last stage decision, left valid by the closed-lost exception that did not supersede it,
 * ends where the exception begins, both resolved; the object gets its timeline; a second run does nothing.
 */
import { expect, test } from "bun:test";
import { TenantIngest } from "../../../actors/tenant/ingest/ingest.ts";
import { IngestStore } from "../../../actors/tenant/ingest/ingest-store.ts";
import { decisionKey, timelineKey } from "../../../actors/tenant/ingest/keys.ts";
import { upgradeTimelines } from "../../../actors/tenant/ingest/timeline-upgrade.ts";
import type { EntryDraft } from "../../../src/models/entry.ts";
import { eventProvenance } from "../../../src/provenance/source-origin.ts";
import { memoryVaults, TENANT } from "../../helpers/tenant-memory.ts";

const KEY = "marketing_crm:deal:901";
const fresh = memoryVaults("mrt-timeline-upgrade-");

/** A vault as the earlier runtime left a lost deal: the index names the exception and the stage decision. */
async function earlierVault() {
  const { vault, memory, clock } = fresh();
  const by = "connector:marketing_crm";
  const stage = memory.entryFromEvent({
    draft: {
      category: "decision",
      content: "Deal 901 moved to stage contractsent.",
      stage: "contractsent",
      valid_from: "2026-02-01T00:00:00.000Z",
    } as EntryDraft,
    by,
    provenance: eventProvenance("marketing_crm", { event_id: "e", payload: null }),
    now: clock.now(),
    alongside: (id) => ({
      objects: [
        [KEY, id],
        [decisionKey(KEY), id],
      ],
    }),
  });
  const lost = memory.entryFromEvent({
    draft: {
      category: "exception",
      content: "Deal 901 was closed lost.",
      status: "open",
      data: { stage: "closed_lost" },
      valid_from: "2026-02-10T00:00:00.000Z",
    } as EntryDraft,
    by,
    provenance: eventProvenance("marketing_crm", { event_id: "e", payload: null }),
    now: clock.now(),
    alongside: (id) => ({ objects: [[KEY, id]] }),
  });
  await Promise.all([stage.committed, lost.committed]);
  return { vault, memory, clock, stage: stage.id, lost: lost.id };
}

test("the pass ends and resolves the stage a closed-lost deal left valid, once", async () => {
  const { vault, memory, clock, stage, lost } = await earlierVault();
  const store = new IngestStore(vault);
  await upgradeTimelines(vault, store, memory.entries, clock.now());
  expect(memory.entries.get(stage)?.entry).toMatchObject({
    valid_to: "2026-02-10T00:00:00.000Z",
    status: "resolved",
  });
  const exception = memory.entries.get(lost)!;
  expect(exception.entry).toMatchObject({ valid_to: null, status: "resolved" });
  expect(exception.prior_status).toBe("open");
  expect(JSON.parse(store.objectLatest(timelineKey(KEY))!).map((m: unknown[]) => m[0])).toEqual([
    stage,
    lost,
  ]);
  const changes = vault.changes.current();
  await upgradeTimelines(vault, store, memory.entries, clock.now());
  expect(vault.changes.current()).toBe(changes);
});

test("opening the ingest runs the pass", async () => {
  const { vault, memory, clock, stage } = await earlierVault();
  new TenantIngest({ tenantId: TENANT, vault, memory, clock });
  expect(memory.entries.get(stage)?.entry.valid_to).toBe("2026-02-10T00:00:00.000Z");
});
