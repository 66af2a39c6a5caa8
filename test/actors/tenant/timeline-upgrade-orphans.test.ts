/**
 * The one-time pass finds the states a reordered delivery orphaned in a vault written before object
 * timelines (actors/tenant/ingest/timeline-upgrade.ts, timeline-groups.ts): the earlier runtime
 * let a late stage take the object's pointer without superseding anything, so the newer stage stayed
 * valid for ever. Opened, the vault ends with exactly one valid state per object, in event time;
 * an entry of another object carrying the same id (a contact of the deal's number) is left alone.
 */
import { expect, test } from "bun:test";
import { TenantIngest } from "../../../actors/tenant/ingest/ingest.ts";
import { IngestStore } from "../../../actors/tenant/ingest/ingest-store.ts";
import { decisionKey, timelineKey } from "../../../actors/tenant/ingest/keys.ts";
import type { EntryDraft } from "../../../src/models/entry.ts";
import { eventProvenance } from "../../../src/provenance/source-origin.ts";
import { memoryVaults, TENANT } from "../../helpers/tenant-memory.ts";

const DAY = 86_400_000;
const T0 = Date.parse("2026-02-01T00:00:00.000Z");
const iso = (day: number) => new Date(T0 + day * DAY).toISOString();
const fresh = memoryVaults("mrt-timeline-orphans-");

type Earlier = ReturnType<typeof fresh>;
let events = 0;

/**
 * A deal's stage as the earlier runtime wrote it: the objects index pointed at it (its latest entry
 * and decision), superseding `supersedes` when given (an in-order arrival), nothing when late.
 */
async function stage(o: Earlier, deal: number, name: string, day: number, supersedes?: string) {
  const key = `marketing_crm:deal:${deal}`;
  const written = o.memory.entryFromEvent({
    draft: {
      category: "decision",
      content: `Deal ${deal} moved to stage ${name}.`,
      stage: name,
      chosen: name,
      tags: ["marketing_crm", "deal"],
      data: { deal_name: `Deal ${deal}`, stage: name, object_id: deal },
      valid_from: iso(day),
      source: { system: "marketing_crm", event_id: String(++events), event_type: "deal.propertyChange" },
      ...(supersedes ? { supersedes } : {}),
    } as EntryDraft,
    by: "connector:marketing_crm",
    provenance: eventProvenance("marketing_crm", { event_id: "e", payload: null }),
    now: o.clock.now(),
    alongside: (id) => ({
      objects: [
        [key, id],
        [decisionKey(key), id],
      ],
    }),
  });
  await written.committed;
  return written.id;
}

/** A contact whose object id is the deal's number: another object, of the same source and field. */
async function contact(o: Earlier, objectId: number) {
  const written = o.memory.entryFromEvent({
    draft: {
      category: "decision",
      content: `Contact ${objectId} chose the annual plan.`,
      chosen: "annual plan",
      tags: ["marketing_crm", "contact"],
      data: { object_id: objectId },
      valid_from: iso(5),
      source: { system: "marketing_crm", event_id: String(++events), event_type: "contact.propertyChange" },
    } as EntryDraft,
    by: "connector:marketing_crm",
    provenance: eventProvenance("marketing_crm", { event_id: "e", payload: null }),
    now: o.clock.now(),
    alongside: (id) => ({ objects: [[`marketing_crm:Jane Doe`, id]] }),
  });
  await written.committed;
  return written.id;
}

test("a vault of orphaned stages, opened, ends with one valid state per object in event time", async () => {
  const o = fresh();
  // Deal 902: stages of days 1, 3, 2 (retried late), 4. The late one took the pointer; day 3 was orphaned.
  const a = await stage(o, 902, "appointmentscheduled", 1);
  const c = await stage(o, 902, "presentationscheduled", 3, a);
  const b = await stage(o, 902, "qualifiedtobuy", 2);
  const d = await stage(o, 902, "contractsent", 4, b);
  // Deal 903: the newer stage first, the older one late: no supersession links them at all.
  const newer = await stage(o, 903, "decisionmakerboughtin", 3);
  const older = await stage(o, 903, "appointmentscheduled", 1);
  const other = await contact(o, 902);
  const before = (id: string) => o.memory.entries.get(id)!.entry;
  expect([c, d].map((id) => before(id).valid_to)).toEqual([null, null]);

  new TenantIngest({ tenantId: TENANT, vault: o.vault, memory: o.memory, clock: o.clock });
  const entry = (id: string) => o.memory.entries.get(id)!.entry;
  expect([a, b, c, d].map((id) => [entry(id).valid_from, entry(id).valid_to])).toEqual([
    [iso(1), iso(2)],
    [iso(2), iso(3)],
    [iso(3), iso(4)],
    [iso(4), null],
  ]);
  expect([older, newer].map((id) => entry(id).valid_to)).toEqual([iso(3), null]);
  expect(entry(other).valid_to).toBeNull();

  // The pointers name the latest in event time; the timelines hold the object's stages in order.
  const store = new IngestStore(o.vault);
  expect(store.objectLatest("marketing_crm:deal:902")).toBe(d);
  expect(store.objectLatest("marketing_crm:deal:903")).toBe(newer);
  expect(store.objectLatest(decisionKey("marketing_crm:deal:903"))).toBe(newer);
  const timeline = JSON.parse(store.objectLatest(timelineKey("marketing_crm:deal:902"))!) as unknown[][];
  expect(timeline.map((m) => m[0])).toEqual([a, b, c, d]);
  expect(timeline.flatMap((m) => m[0])).not.toContain(other);
});
