import { describe, expect, test } from "bun:test";
import { IngestStore } from "../../../../actors/tenant/ingest/ingest-store.ts";
import { ValidationFailed } from "../../../../src/errors/domain-errors.ts";
import type { EntryDraft } from "../../../../src/models/entry.ts";
import { eventProvenance } from "../../../../src/provenance/source-origin.ts";
import { memoryVaults } from "../../../helpers/tenant-memory.ts";

const opened = memoryVaults("mrt-from-event-");

function setup() {
  const o = opened();
  return { ...o, ingest: new IngestStore(o.vault) };
}

const fact = (content: string, valid_from?: string): EntryDraft =>
  ({ category: "fact", content, ...(valid_from ? { valid_from } : {}) }) as EntryDraft;

describe("TenantMemory.entryFromEvent: a source event's entry", () => {
  test("a draft its category's schema refuses is a ValidationFailed naming the field; nothing is written", () => {
    const { memory, vault, clock } = setup();
    const draft = { category: "relationship", content: "x", subject: "a", predicate: "b" } as EntryDraft;
    let refused: unknown;
    try {
      memory.entryFromEvent({
        draft,
        by: "connector:crm",
        provenance: eventProvenance("crm", { event_id: "e", payload: null }),
        now: clock.now(),
      });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ValidationFailed);
    expect((refused as Error).message).toMatch(/^\/object /);
    expect([...memory.entries.pending()]).toEqual([]);
    expect(vault.changes.current()).toBe(0);
  });

  test("the records given alongside commit with the entry, keyed by its id", async () => {
    const { memory, clock, ingest } = setup();
    const written = memory.entryFromEvent({
      draft: fact("a deal moved"),
      by: "connector:crm",
      provenance: eventProvenance("crm", { event_id: "e", payload: null }),
      now: clock.now(),
      alongside: (id) => ({ objects: [["deal-1", id]] }),
    });
    await written.committed;
    expect(ingest.objectLatest("deal-1")).toBe(written.id);
    expect(memory.entries.get(written.id)?.entry.created_by).toBe("connector:crm");
  });

  test("an identical draft is the stored entry, and what goes alongside is still written", async () => {
    const { memory, clock, ingest } = setup();
    const first = memory.entryFromEvent({
      draft: fact("same"),
      by: "connector:crm",
      provenance: eventProvenance("crm", { event_id: "e", payload: null }),
      now: clock.now(),
    });
    await first.committed;
    const again = memory.entryFromEvent({
      draft: fact("same"),
      by: "connector:crm",
      provenance: eventProvenance("crm", { event_id: "e", payload: null }),
      now: clock.now(),
      alongside: (id) => ({ objects: [["obj", id]] }),
    });
    await again.committed;
    expect(again.id).toBe(first.id);
    expect(ingest.objectLatest("obj")).toBe(first.id);
    expect(memory.entries.count()).toBe(1);
  });

  test("`effects` change other entries in the same write, and the entry as they give it is stored", async () => {
    const { memory, clock } = setup();
    const by = "connector:crm";
    const old = memory.entryFromEvent({
      draft: fact("stage 1", "2026-02-01T00:00:00.000Z"),
      by,
      provenance: eventProvenance("crm", { event_id: "e", payload: null }),
      now: clock.now(),
    });
    await old.committed;
    const stored = memory.entries.get(old.id)!;
    const ended = { ...stored, entry: { ...stored.entry, valid_to: "2026-02-15T00:00:00.000Z" } };
    const later = memory.entryFromEvent({
      draft: fact("stage 2", "2026-02-15T00:00:00.000Z"),
      by,
      provenance: eventProvenance("crm", { event_id: "e", payload: null }),
      now: clock.now(),
      effects: (self) => ({
        stored: { ...self, entry: { ...self.entry, tags: ["placed"] } },
        updates: [ended],
        changes: [{ type: "entry.superseded", id: old.id, category: "fact", by, related: self.entry.id }],
      }),
    });
    await later.committed;
    expect(memory.entries.get(old.id)?.entry.valid_to).toBe("2026-02-15T00:00:00.000Z");
    expect(memory.entries.get(later.id)?.entry.tags).toEqual(["placed"]);
  });
});
