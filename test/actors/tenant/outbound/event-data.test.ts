/**
 * The outbound slice's event data (what `outbound.payload` answers a delivery worker) as pure
 * logic over fake reads: the entry as GET answers it now, an erased entry as its id and erasure
 * time, a dead letter as its summary without the payload, and null for what is gone.
 */
import { describe, expect, test } from "bun:test";
import { type EventReads, eventData } from "../../../../actors/tenant/outbound/event-data.ts";
import { NotFound } from "../../../../src/errors/domain-errors.ts";
import type { Change } from "../../../../src/models/change.ts";
import type { DeadLetter } from "../../../../src/models/dead-letter.ts";
import type { Entry } from "../../../../src/models/entry.ts";
import type { Tombstone } from "../../../../src/vault/write-set.ts";

const AT = "2026-02-01T00:00:00.000Z";

function change(type: Change["type"], id: string, extra: Partial<Change> = {}): Change {
  return { seq: 1, at: AT, type, id, by: "agent-1", ...extra };
}

const letter = (source: string): DeadLetter =>
  ({
    event_id: "evt-1",
    tenant_id: "t",
    source,
    event_type: "message",
    received_at: AT,
    attempts: 1,
    last_error: "no mapping",
    status: "dead",
    payload: { secret: "the customer's words" },
    headers: {},
  }) as DeadLetter;

function reads(world: {
  entries?: Record<string, unknown>;
  tombstones?: Tombstone[];
  letters?: DeadLetter[];
  failing?: Error;
}): EventReads & { asked: unknown[] } {
  const asked: unknown[] = [];
  return {
    asked,
    query: {
      get: (category: string, id: string, withVector: boolean) => {
        asked.push([category, id, withVector]);
        if (world.failing) throw world.failing;
        const entry = world.entries?.[id];
        if (!entry) throw new NotFound(`no ${category} ${id}`);
        return entry;
      },
    },
    tombstones: { of: (id: string) => world.tombstones?.find((t) => t.id === id) },
    deadLetters: {
      deadLettersOf: (eventId: string) => (world.letters ?? []).filter((d) => d.event_id === eventId),
    },
  } as unknown as EventReads & { asked: unknown[] };
}

describe("eventData", () => {
  test("an entry change carries the entry as GET answers it now, read without its vector", () => {
    const entry = { id: "aaaaaaa1", category: "fact", subject: "now" } as unknown as Entry;
    const from = reads({ entries: { aaaaaaa1: entry } });
    const c = change("entry.corrected", "aaaaaaa1", { category: "fact", related: "aaaaaaa2" });
    expect(eventData(c, from)).toEqual({ change: c, entry });
    expect(from.asked).toEqual([["fact", "aaaaaaa1", false]]);
  });

  test("an entry erased since carries only its id and when it was erased", () => {
    const tombstone: Tombstone = {
      id: "bbbbbbb1",
      category: "fact",
      recorded_at: AT,
      erased_at: "2026-02-02T00:00:00.000Z",
      erased_by: "op",
    };
    const from = reads({ entries: { bbbbbbb1: { id: "bbbbbbb1" } }, tombstones: [tombstone] });
    const c = change("entry.created", "bbbbbbb1", { category: "fact" });
    expect(eventData(c, from)).toEqual({
      change: c,
      entry: { id: "bbbbbbb1", erased_at: "2026-02-02T00:00:00.000Z" },
    });
    expect(from.asked).toEqual([]);
  });

  test("an entry no longer there, or a change without a category, carries null", () => {
    const gone = change("entry.created", "ccccccc1", { category: "fact" });
    expect(eventData(gone, reads({}))).toEqual({ change: gone, entry: null });
    const uncategorised = change("entry.created", "ccccccc2");
    expect(eventData(uncategorised, reads({ entries: { ccccccc2: {} } }))).toEqual({
      change: uncategorised,
      entry: null,
    });
  });

  test("a read failing otherwise than NotFound is not swallowed", () => {
    const c = change("entry.created", "ddddddd1", { category: "fact" });
    expect(() => eventData(c, reads({ failing: new Error("disk") }))).toThrow("disk");
  });

  test("a dead letter carries its summary, never its payload, from the change's source", () => {
    const c = change("deadletter.created", "evt-1", { source: "chat" });
    const answer = eventData(c, reads({ letters: [letter("mail"), letter("chat")] }));
    expect(answer).toEqual({
      change: c,
      dead_letter: {
        event_id: "evt-1",
        source: "chat",
        event_type: "message",
        received_at: AT,
        last_error: "no mapping",
      },
    });
    expect(JSON.stringify(answer)).not.toContain("customer");
  });

  test("a dead letter resolved since carries null", () => {
    const c = change("deadletter.created", "evt-1", { source: "chat" });
    expect(eventData(c, reads({ letters: [letter("mail")] }))).toEqual({ change: c, dead_letter: null });
  });
});
