/**
 * Bulk replay (docs/webhook-operations.md#bulk-replay): POST /admin/webhooks/replay/{tenant_id}
 * {source?, from?, to?, event_type?, limit?, cursor?}. Dead letters are made by delivering to a
 * suspended tenant (kept as `tenant_suspended`), which replay once it is resumed.
 */
import { describe, expect, test } from "bun:test";
import {
  admin,
  BAD_BULK_BODIES,
  deadLettersFor,
  deliver,
  expectFiltersTakeOneEach,
  fact,
  factsOf,
  useDeadLetterSuite,
  warehouseTenant,
} from "../helpers/webhook-ops.ts";

const suite = useDeadLetterSuite();
const { clock, withDeadLetters } = suite;

const replay = (tenantId: string, body?: unknown) =>
  admin(suite.h, "POST", `/admin/webhooks/replay/${tenantId}`, body);

describe("POST /admin/webhooks/replay/{tenant_id}", () => {
  test("replays every dead letter still dead, oldest first, in pages of `limit` followed by next_cursor", async () => {
    const t = await withDeadLetters([fact("d-1"), fact("d-2"), fact("d-3")]);
    const first = await replay(t.id, { limit: 2 });
    expect(first.status).toBe(200);
    expect(first.body.results.map((r: { event_id: string }) => r.event_id)).toEqual(["d-1", "d-2"]);
    expect(first.body).toMatchObject({ replayed: 2, dead: 0 });
    expect(first.body.results[0]).toMatchObject({ source: "warehouse", status: "replayed" });
    expect(first.body.results[0].entries).toHaveLength(1);
    expect(typeof first.body.next_cursor).toBe("string");
    const second = await replay(t.id, { limit: 2, cursor: first.body.next_cursor });
    expect(second.body.results.map((r: { event_id: string }) => r.event_id)).toEqual(["d-3"]);
    expect(second.body.next_cursor).toBeNull();
    expect((await factsOf(suite.h, t.token)).map((f) => f.source?.event_id).sort()).toEqual([
      "d-1",
      "d-2",
      "d-3",
    ]);
    // Nothing left: an empty answer.
    expect((await replay(t.id)).body).toEqual({ results: [], replayed: 0, dead: 0, next_cursor: null });
    // Logged as replays.
    const { body: log } = await admin(suite.h, "GET", `/admin/webhooks/deliveries/${t.id}?outcome=accepted`);
    expect(log.deliveries.map((d: { via: string }) => d.via)).toEqual(["replay", "replay", "replay"]);
  });

  test("one that fails again is answered dead with its error, and the cursor moves past it", async () => {
    const bad = { event_id: "still-bad", kind: "relationship", content: "nobody" };
    const t = await warehouseTenant(suite.h);
    expect((await deliver(suite.h, t.id, [bad])).body.dead_lettered).toEqual(["still-bad"]);
    clock.advance(1000);
    await deadLettersFor(suite.h, clock, t.id, [fact("fine")]);
    const good = t.id;
    const first = await replay(good, { limit: 1 });
    expect(first.body).toMatchObject({ replayed: 0, dead: 1 });
    expect(first.body.results[0]).toMatchObject({ event_id: "still-bad", status: "dead" });
    expect(first.body.results[0].last_error).toStartWith("missing_field");
    const next = await replay(good, { limit: 1, cursor: first.body.next_cursor });
    expect(next.body.results).toMatchObject([{ event_id: "fine", status: "replayed" }]);
  });

  test("a cursor after the longest event id a source keeps (512 characters: a control character, multi-byte ones) is taken back", async () => {
    const longest = "\u0001é😀".repeat(128);
    expect(longest.length).toBe(512);
    const t = await withDeadLetters([fact(longest), fact("after-long")]);
    const first = await replay(t.id, { limit: 1 });
    expect(first.body.results.map((r: { event_id: string }) => r.event_id)).toEqual([longest]);
    const next = await replay(t.id, { limit: 1, cursor: first.body.next_cursor });
    expect(next.status).toBe(200);
    expect(next.body.results.map((r: { event_id: string }) => r.event_id)).toEqual(["after-long"]);
  });

  test("filters by source, event_type and received_at (from and to inclusive)", async () => {
    const ids = async (tenantId: string, body: unknown) =>
      (await replay(tenantId, body)).body.results.map((r: { event_id: string }) => r.event_id);
    const t = await expectFiltersTakeOneEach(suite, ids);
    expect(await ids(t.id, {})).toEqual(["f-3"]);
  });

  test("a bulk and a single replay of one letter at once write it once", async () => {
    const t = await withDeadLetters([fact("race-1", "raced fact"), fact("race-2")]);
    const [bulk, single] = await Promise.all([
      replay(t.id),
      admin(suite.h, "POST", `/admin/webhooks/replay/${t.id}/race-1`),
    ]);
    expect(bulk.status).toBe(200);
    expect(single.status).toBe(200);
    const fromBulk = bulk.body.results.find((r: { event_id: string }) => r.event_id === "race-1");
    expect(fromBulk).toMatchObject({ status: "replayed" });
    expect(single.body).toMatchObject({ event_id: "race-1", status: "replayed" });
    expect(single.body.entries).toEqual(fromBulk.entries);
    const facts = await factsOf(suite.h, t.token);
    expect(facts.filter((f) => f.source?.event_id === "race-1")).toHaveLength(1);
    const { body: letters } = await admin(suite.h, "GET", `/admin/webhooks/dead-letters/${t.id}`);
    const letter = letters.dead_letters.find((d: { event_id: string }) => d.event_id === "race-1");
    expect(letter).toMatchObject({ status: "replayed", attempts: 2 });
  });

  test("is in the admin audit log, with its counts and filters", async () => {
    const t = await withDeadLetters([fact("audited")]);
    await replay(t.id, { source: "warehouse" });
    const { body } = await admin(suite.h, "GET", "/admin/audit/events?limit=10");
    const event = body.events.find(
      (e: { action: string; tenant_id: string }) =>
        e.action === "deadletter.bulk_replayed" && e.tenant_id === t.id,
    );
    expect(event).toMatchObject({
      sub: "operator",
      target: null,
      details: { replayed: 1, dead: 0, source: "warehouse" },
    });
  });

  test("bad input is a 422 and writes nothing; another tenant's token a 403; an unknown tenant a 404", async () => {
    const t = await withDeadLetters([fact("untouched")]);
    for (const body of BAD_BULK_BODIES) {
      const r = await replay(t.id, body);
      expect({ body, status: r.status, code: r.body.code }).toEqual({
        body,
        status: 422,
        code: "validation_failed",
      });
    }
    // JSON `null` is a non-object like the others (the reader answers it as it does no body).
    const nothing = await suite.h.json("POST", `/admin/webhooks/replay/${t.id}`, {
      token: suite.h.adminToken,
      raw: "null",
      headers: { "content-type": "application/json" },
    });
    expect({ status: nothing.status, code: nothing.body.code }).toEqual({
      status: 422,
      code: "validation_failed",
    });
    const broken = await suite.h.json("POST", `/admin/webhooks/replay/${t.id}`, {
      token: suite.h.adminToken,
      raw: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(broken.status).toBe(400);
    // An NDJSON stream (the import's media type) to this JSON route: the documented 415.
    const ndjson = await suite.h.json("POST", `/admin/webhooks/replay/${t.id}`, {
      token: suite.h.adminToken,
      raw: "{}\n{}\n",
      headers: { "content-type": "application/x-ndjson" },
    });
    expect({ status: ndjson.status, code: ndjson.body.code }).toEqual({
      status: 415,
      code: "unsupported_media_type",
    });
    expect(await factsOf(suite.h, t.token)).toEqual([]);
    const other = await warehouseTenant(suite.h);
    expect(
      (await suite.h.json("POST", `/admin/webhooks/replay/${t.id}`, { token: other.token, body: {} })).status,
    ).toBe(403);
    expect((await replay("01JDB2X6J3KQ5W8Z3M4N7P9R2S", {})).status).toBe(404);
    expect((await suite.h.json("POST", `/admin/webhooks/replay/${t.id}`, { body: {} })).status).toBe(401);
  });
});
