/**
 * How a delivery reaches the vault (actors/tenant/ingest/ingest.ts, delivery-set.ts): one write set
 * for the whole delivery, holding every event's entries, dedupe record, dead letter, connector
 * state and delivery log record. The events after one read what it wrote before anything is
 * written: a second event of the same id is a duplicate, an outcome resolves a decision of the same
 * delivery, a timeline delivered at once ends as it does delivered event by event. A write the vault
 * refuses (507) leaves nothing of the delivery, so its redelivery is applied whole; a redelivery
 * after a restart is a duplicate. A replay of a dead letter is one set too.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tenantBehaviour } from "../../../actors/tenant/tenant.ts";
import { InsufficientStorage } from "../../../src/errors/domain-errors.ts";
import type { Delivery, IngestItem } from "../../../src/ingest/ingest-item.ts";
import type { Category } from "../../../src/models/category.ts";
import type { EntryDraft } from "../../../src/models/entry.ts";
import type { TenantStorage } from "../../../src/ports/runtime-ports.ts";
import type { TenantProtocol } from "../../../src/protocols/tenant-protocol.ts";
import { ActorSystem } from "../../../src/runtime/actor-system.ts";
import { ManualClock } from "../../../src/runtime/clock.ts";
import type { IngestDraft } from "../../../src/sources/types.ts";
import { TenantVault } from "../../../src/vault/tenant-vault.ts";
import { dedupeRecords, type WriteSet } from "../../../src/vault/write-set.ts";

const TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
const DAY = 86_400_000;
const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mrt-ingest-sets-"));
  dirs.push(dir);
  return dir;
}

/**
 * A tenant actor whose vault records every write set it is given, and refuses those `refuse`
 * names as its size ceiling does: at once, before anything of the set is staged.
 */
function recordingTenant(dir: string) {
  const sets: WriteSet[] = [];
  const gate = { refuse: (_set: WriteSet) => false };
  class RecordingVault extends TenantVault {
    override write(set: WriteSet): Promise<void> {
      if (gate.refuse(set)) throw new InsufficientStorage("this tenant's vault is full");
      sets.push(set);
      return super.write(set);
    }
  }
  const storage: TenantStorage = {
    openVault: (_id, path, options) => new RecordingVault(path, options),
    sealImport: async () => undefined,
  };
  const clock = new ManualClock(Date.parse("2027-01-01T00:00:00.000Z"));
  const system = new ActorSystem({ clock, idleMs: Number.POSITIVE_INFINITY });
  const kind = system.kind<TenantProtocol>("tenant", (id) =>
    tenantBehaviour(id, { dataDir: dir, storage, clock, dims: 8, tellSelf: () => undefined }),
  );
  const tenant = kind.ref(TENANT);
  const entry = (category: Category, id: string) =>
    tenant.ask({ type: "entry.get", category, id, includeEmbedding: false });
  return { tenant, sets, gate, entry, stop: () => system.stopAll() };
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

/** An event of one draft, as a source maps it. */
function single(id: string, ingest: IngestDraft): IngestItem {
  return { event: { event_id: id, event_type: "t", payload: {} }, result: { ok: true, drafts: [ingest] } };
}

const failed = (id: string): IngestItem => ({
  event: { event_id: id, event_type: "t", payload: { broken: true } },
  result: { ok: false, reason: "mapping_failed", detail: "no amount" },
});

const deliveryOf = (items: IngestItem[]): Delivery => ({ source: "data", headers: {}, items });

const delivery = deliveryOf([
  event("ev-two", [{ content: "first of two" }, { content: "second of two" }]),
  event("ev-object", [{ content: "about an object", object_key: "deal:7" }]),
  event("ev-empty", []),
]);

/** The sets carrying anything of a delivery's events (the vault's own, such as an upgrade's mark, aside). */
const ofDeliveries = (sets: WriteSet[]) =>
  sets.filter(
    (s) =>
      s.created.length > 0 ||
      dedupeRecords(s).length > 0 ||
      (s.deadLetters?.length ?? 0) > 0 ||
      (s.webhooks?.log?.length ?? 0) > 0,
  );

const dedupeOf = (set: WriteSet, eventId: string) =>
  dedupeRecords(set).find((d) => d.key.endsWith(eventId))?.record;

const outcomes = (set: WriteSet) => set.webhooks?.log?.map(([, r]) => [r.event_id, r.outcome]);

describe("a delivery is one write set", () => {
  test("every event's entries, dedupe record, state and log record; a redelivery after a restart is a duplicate", async () => {
    const dir = tempDir();
    const { tenant, sets, stop } = recordingTenant(dir);
    const summary = await tenant.ask({ type: "webhook.ingest", delivery });
    expect(summary).toMatchObject({ accepted: 3, duplicates: 0, dead_lettered: [] });
    expect(summary.entries).toHaveLength(3);

    expect(ofDeliveries(sets)).toHaveLength(1);
    const [set] = ofDeliveries(sets);
    expect(set!.created.map((e) => e.entry.content)).toEqual([
      "first of two",
      "second of two",
      "about an object",
    ]);
    expect(dedupeOf(set!, "ev-two")).toMatchObject({ entries: summary.entries.slice(0, 2) });
    expect(dedupeOf(set!, "ev-object")).toMatchObject({ entries: [summary.entries[2]] });
    expect(dedupeOf(set!, "ev-empty")).toMatchObject({ entries: [] });
    expect(set!.objects).toEqual([["deal:7", summary.entries[2]!]]);
    expect(set!.state).toEqual([
      ["cursor/ev-two", "ev-two"],
      ["cursor/ev-object", "ev-object"],
      ["cursor/ev-empty", "ev-empty"],
    ]);
    expect(outcomes(set!)).toEqual([
      ["ev-two", "accepted"],
      ["ev-object", "accepted"],
      ["ev-empty", "accepted"],
    ]);
    await stop();

    const again = recordingTenant(dir);
    expect(await again.tenant.ask({ type: "webhook.ingest", delivery })).toMatchObject({
      accepted: 0,
      duplicates: 3,
      entries: [],
    });
    expect(ofDeliveries(again.sets)).toHaveLength(1);
    await again.stop();
  });

  test("a refused draft dead-letters its event in the same set, beside the entries of the drafts before it", async () => {
    const { tenant, sets, stop } = recordingTenant(tempDir());
    const refused = event("ev-bad", [{ content: "fine" }, { content: "" }]);
    const summary = await tenant.ask({ type: "webhook.ingest", delivery: deliveryOf([refused]) });
    expect(summary).toMatchObject({ accepted: 0, dead_lettered: ["ev-bad"] });
    expect(ofDeliveries(sets)).toHaveLength(1);
    const [set] = ofDeliveries(sets);
    expect(set!.created.map((e) => e.entry.content)).toEqual(["fine"]);
    expect(set!.deadLetters).toHaveLength(1);
    // The event's dedupe record is the dead letter's: it lists none of the entries.
    expect(dedupeRecords(set!)).toHaveLength(1);
    expect(dedupeOf(set!, "ev-bad")).toMatchObject({ entries: [] });
    const record = set!.webhooks!.log![0]![1];
    expect(record).toMatchObject({ outcome: "dead_lettered", entries: [set!.created[0]!.entry.id] });
    await stop();
  });

  test("two events of one id in one delivery: the second is a duplicate", async () => {
    const { tenant, sets, stop } = recordingTenant(tempDir());
    const twice = deliveryOf([
      event("ev-same", [{ content: "once" }]),
      event("ev-same", [{ content: "twice" }]),
    ]);
    const summary = await tenant.ask({ type: "webhook.ingest", delivery: twice });
    expect(summary).toMatchObject({ accepted: 1, duplicates: 1 });
    expect(summary.entries).toHaveLength(1);
    const [set] = ofDeliveries(sets);
    expect(ofDeliveries(sets)).toHaveLength(1);
    expect(set!.created.map((e) => e.entry.content)).toEqual(["once"]);
    expect(dedupeRecords(set!)).toHaveLength(1);
    expect(outcomes(set!)).toEqual([
      ["ev-same", "accepted"],
      ["ev-same", "duplicate"],
    ]);
    await stop();
  });

  test("a dead-lettered event among accepted ones: its dead letter and log record ride in the delivery's set", async () => {
    const { tenant, sets, stop } = recordingTenant(tempDir());
    const mixed = deliveryOf([
      event("ev-a", [{ content: "a" }]),
      failed("ev-broken"),
      event("ev-b", [{ content: "b" }]),
    ]);
    const summary = await tenant.ask({ type: "webhook.ingest", delivery: mixed });
    expect(summary).toMatchObject({ accepted: 2, duplicates: 0, dead_lettered: ["ev-broken"] });
    expect(ofDeliveries(sets)).toHaveLength(1);
    const [set] = ofDeliveries(sets);
    expect(set!.deadLetters?.map(([, r]) => (r as { event_id: string }).event_id)).toEqual(["ev-broken"]);
    expect(set!.changes?.map((c) => c.type)).toEqual([
      "entry.created",
      "deadletter.created",
      "entry.created",
    ]);
    expect(outcomes(set!)).toEqual([
      ["ev-a", "accepted"],
      ["ev-broken", "dead_lettered"],
      ["ev-b", "accepted"],
    ]);
    const letters = await tenant.ask({ type: "deadletter.list", limit: 10 });
    expect(letters.map((l) => [l.event_id, l.last_error])).toEqual([
      ["ev-broken", "mapping_failed: no amount"],
    ]);
    // The platform's retry of the whole delivery: every event was taken, the dead letter included.
    expect(await tenant.ask({ type: "webhook.ingest", delivery: mixed })).toMatchObject({
      accepted: 0,
      duplicates: 3,
      dead_lettered: [],
    });

    // Its replay is one set as well: the entry, the event's dedupe record, the letter's update, its log record.
    sets.length = 0;
    const fixed = event("ev-broken", [{ content: "mapped at last" }]);
    const replayed = await tenant.ask({
      type: "deadletter.resolve",
      eventId: "ev-broken",
      source: "data",
      item: fixed,
      requestId: null,
    });
    expect(replayed).toMatchObject({ status: "replayed", entries: [expect.any(String)] });
    expect(ofDeliveries(sets)).toHaveLength(1);
    const [replay] = ofDeliveries(sets);
    expect(replay!.created.map((e) => e.entry.content)).toEqual(["mapped at last"]);
    const written = "entries" in replayed ? replayed.entries : [];
    expect(dedupeOf(replay!, "ev-broken")).toMatchObject({ entries: written });
    expect(replay!.deadLetters?.map(([, r]) => (r as { status: string }).status)).toEqual(["replayed"]);
    expect(replay!.webhooks?.log?.map(([, r]) => [r.outcome, r.via])).toEqual([["accepted", "replay"]]);
    await stop();
  });

  test("a refused write (507) leaves nothing of the delivery: its redelivery is applied whole", async () => {
    const { tenant, sets, gate, stop } = recordingTenant(tempDir());
    const three = deliveryOf([
      event("ev-1", [{ content: "one" }]),
      event("ev-2", [{ content: "two" }]),
      failed("ev-3"),
    ]);
    // The vault is full by the time the second event's entry comes: the delivery is refused whole.
    gate.refuse = (set) => set.created.some((s) => s.entry.content === "two");
    await expect(tenant.ask({ type: "webhook.ingest", delivery: three })).rejects.toBeInstanceOf(
      InsufficientStorage,
    );
    expect(ofDeliveries(sets)).toEqual([]);
    expect(await tenant.ask({ type: "webhook.seen", source: "data", eventId: "ev-1" })).toBe("new");
    expect(await tenant.ask({ type: "deadletter.list", limit: 10 })).toEqual([]);

    gate.refuse = () => false;
    const redelivered = await tenant.ask({ type: "webhook.ingest", delivery: three });
    expect(redelivered).toMatchObject({ accepted: 2, duplicates: 0, dead_lettered: ["ev-3"] });
    expect(redelivered.entries).toHaveLength(2);
    await stop();
  });
});

describe("the events after one read what it wrote", () => {
  test("an outcome resolves the decision an earlier event of the same delivery wrote", async () => {
    const { tenant, entry, stop } = recordingTenant(tempDir());
    const decided = single("ev-decision", {
      draft: { category: "decision", content: "offer the discount" },
      object_key: "deal:9",
    });
    const won = single("ev-outcome", {
      draft: { category: "outcome", content: "deal won", result: "success" } as EntryDraft,
      outcome_of: "deal:9",
    });
    const summary = await tenant.ask({ type: "webhook.ingest", delivery: deliveryOf([decided, won]) });
    expect(summary).toMatchObject({ accepted: 2, dead_lettered: [] });
    const [decisionId, outcomeId] = summary.entries as [string, string];
    const outcome = await entry("outcome", outcomeId);
    expect(outcome).toMatchObject({ category: "outcome", decision_id: decisionId });
    expect(await entry("decision", decisionId)).toMatchObject({ status: "resolved" });
    await stop();
  });

  test("an object's timeline delivered in one delivery ends as it does delivered event by event", async () => {
    // A state, a member, the close, a state after it and a member after that, arriving out of order.
    const roles = ["state", "member", "close", "state", "member"] as const;
    const itemOf = (object: string, i: number): IngestItem => {
      const role = roles[i]!;
      const draft = {
        category: role === "state" ? "decision" : "exception",
        content: `${object}: ${role} ${i}`,
        valid_from: new Date(T0 + (i + 1) * DAY).toISOString(),
      } as EntryDraft;
      const lifecycle = role === "member" ? {} : { lifecycle: role };
      return single(`${object}:${i}`, { draft, object_key: `src:${object}`, ...lifecycle });
    };
    const order = [4, 2, 0, 3, 1];
    const { tenant, entry, stop } = recordingTenant(tempDir());
    const history = async (object: string, deliveries: IngestItem[][]) => {
      const ids = new Map<string, string>();
      for (const items of deliveries) {
        const summary = await tenant.ask({ type: "webhook.ingest", delivery: deliveryOf(items) });
        expect(summary.accepted).toBe(items.length);
        for (const [k, item] of items.entries()) ids.set(item.event.event_id, summary.entries[k]!);
      }
      const entries = roles.map((role, i) =>
        entry(role === "state" ? "decision" : "exception", ids.get(`${object}:${i}`)!),
      );
      return (await Promise.all(entries)).map((e) => [e.valid_to, e.status]);
    };
    const oneByOne = await history(
      "apart",
      order.map((i) => [itemOf("apart", i)]),
    );
    const together = await history("together", [order.map((i) => itemOf("together", i))]);
    expect(together).toEqual(oneByOne);
    expect(together.map(([, status]) => status)).toEqual([
      "resolved",
      "resolved",
      "resolved",
      "open",
      "open",
    ]);
    await stop();
  });
});
