/**
 * Discard of dead letters (docs/webhook-operations.md#discard): POST /admin/webhooks/discard/{tenant_id}/{event_id}
 * and POST /admin/webhooks/discard/{tenant_id} with a bulk replay's body. A discarded letter stays
 * listed, is never replayed again (single replay 409, bulk replay skips it), and is logged and audited.
 */
import { describe, expect, test } from "bun:test";
import {
  admin,
  BAD_BULK_BODIES,
  expectFiltersTakeOneEach,
  fact,
  factsOf,
  useDeadLetterSuite,
  warehouseTenant,
} from "../helpers/webhook-ops.ts";
import { nextTurn, Scrape } from "../telemetry/scrape.ts";

const suite = useDeadLetterSuite();
const { clock, withDeadLetters } = suite;

const discardOne = (tenantId: string, eventId: string, query = "") =>
  admin(suite.h, "POST", `/admin/webhooks/discard/${tenantId}/${encodeURIComponent(eventId)}${query}`);
const discardAll = (tenantId: string, body?: unknown) =>
  admin(suite.h, "POST", `/admin/webhooks/discard/${tenantId}`, body);
const ids = (results: Array<{ event_id: string }>) => results.map((r) => r.event_id);

async function letterOf(tenantId: string, eventId: string) {
  const { body } = await admin(suite.h, "GET", `/admin/webhooks/dead-letters/${tenantId}`);
  return body.dead_letters.find((d: { event_id: string }) => d.event_id === eventId);
}

async function auditOf(action: string, tenantId: string) {
  const { body } = await admin(suite.h, "GET", "/admin/audit/events?limit=50");
  return body.events.filter(
    (e: { action: string; tenant_id: string }) => e.action === action && e.tenant_id === tenantId,
  );
}

describe("POST /admin/webhooks/discard/{tenant_id}/{event_id}", () => {
  test("discards the letter: kept as discarded (when, by whom), never replayed again, logged and audited", async () => {
    const t = await withDeadLetters([fact("hopeless"), fact("fine")]);
    const at = new Date(clock.now()).toISOString();
    const r = await suite.h.json("POST", `/admin/webhooks/discard/${t.id}/hopeless`, {
      token: suite.h.adminToken,
      headers: { "x-request-id": "discard-req-1" },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      event_id: "hopeless",
      source: "warehouse",
      status: "discarded",
      discarded_at: at,
      discarded_by: "operator",
    });
    expect(await letterOf(t.id, "hopeless")).toMatchObject({
      status: "discarded",
      discarded_at: at,
      discarded_by: "operator",
      attempts: 1,
    });
    const listed = await admin(suite.h, "GET", `/admin/webhooks/dead-letters/${t.id}?status=discarded`);
    expect(ids(listed.body.dead_letters)).toEqual(["hopeless"]);

    // A single replay is refused; a bulk replay takes the other letter only.
    const single = await admin(suite.h, "POST", `/admin/webhooks/replay/${t.id}/hopeless`);
    expect({ status: single.status, code: single.body.code }).toEqual({ status: 409, code: "conflict" });
    expect(single.body.detail).toContain("discarded");
    const bulk = await admin(suite.h, "POST", `/admin/webhooks/replay/${t.id}`, {});
    expect(ids(bulk.body.results)).toEqual(["fine"]);
    expect((await factsOf(suite.h, t.token)).map((f) => f.source?.event_id)).toEqual(["fine"]);
    expect((await letterOf(t.id, "hopeless")).status).toBe("discarded");

    // Asked again: the first discard stands (nothing logged or counted twice).
    clock.advance(5000);
    const again = await discardOne(t.id, "hopeless");
    expect(again.status).toBe(200);
    expect(again.body.discarded_at).toBe(at);

    const log = await admin(suite.h, "GET", `/admin/webhooks/deliveries/${t.id}?outcome=discarded`);
    expect(log.body.deliveries).toEqual([
      {
        event_id: "hopeless",
        source: "warehouse",
        event_type: "fact",
        received_at: at,
        outcome: "discarded",
        entries: [],
        request_id: "discard-req-1",
        via: "discard",
      },
    ]);
    const audited = await auditOf("deadletter.discarded", t.id);
    expect(audited.length).toBeGreaterThanOrEqual(1);
    expect(audited[audited.length - 1]).toMatchObject({
      sub: "operator",
      target: "hopeless",
      details: { source: "warehouse", discarded_at: at },
    });
  });

  test("a letter replayed already is a 409 and stays replayed", async () => {
    const t = await withDeadLetters([fact("done")]);
    expect((await admin(suite.h, "POST", `/admin/webhooks/replay/${t.id}/done`)).body.status).toBe(
      "replayed",
    );
    const r = await discardOne(t.id, "done");
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 409, code: "conflict" });
    expect((await letterOf(t.id, "done")).status).toBe("replayed");
  });

  test("a discard and a replay of one letter at once: exactly one wins, the other is a 409", async () => {
    const t = await withDeadLetters([fact("raced")]);
    const [discard, replay] = await Promise.all([
      discardOne(t.id, "raced"),
      admin(suite.h, "POST", `/admin/webhooks/replay/${t.id}/raced`),
    ]);
    expect([discard.status, replay.status].sort()).toEqual([200, 409]);
    const letter = await letterOf(t.id, "raced");
    const facts = await factsOf(suite.h, t.token);
    if (discard.status === 200) {
      expect(letter.status).toBe("discarded");
      expect(facts).toEqual([]);
    } else {
      expect(letter.status).toBe("replayed");
      expect(facts).toHaveLength(1);
    }
  });

  test("unknown letter or tenant 404, a bad source 422, no token 401, another tenant's token 403", async () => {
    const t = await withDeadLetters([fact("kept")]);
    expect((await discardOne(t.id, "no-such-event")).status).toBe(404);
    expect((await discardOne(t.id, "x".repeat(513))).status).toBe(404);
    expect((await discardOne("01JDB2X6J3KQ5W8Z3M4N7P9R2S", "kept")).status).toBe(404);
    expect((await discardOne(t.id, "kept", "?source=payments")).status).toBe(404);
    const bad = await discardOne(t.id, "kept", "?source=no_such_source");
    expect({ status: bad.status, code: bad.body.code }).toEqual({ status: 422, code: "validation_failed" });
    const path = `/admin/webhooks/discard/${t.id}/kept`;
    expect((await suite.h.json("POST", path, {})).status).toBe(401);
    const other = await warehouseTenant(suite.h);
    expect((await suite.h.json("POST", path, { token: other.token })).status).toBe(403);
    expect((await suite.h.json("POST", path, { token: t.token })).status).toBe(403);
    expect((await letterOf(t.id, "kept")).status).toBe("dead");
  });
});

describe("POST /admin/webhooks/discard/{tenant_id}", () => {
  test("discards the letters still dead that match, oldest first, in pages of `limit` followed by next_cursor", async () => {
    const t = await withDeadLetters([fact("b-1"), fact("b-2"), fact("b-3")]);
    const first = await discardAll(t.id, { limit: 2 });
    expect(first.status).toBe(200);
    expect(first.body.results).toEqual([
      { event_id: "b-1", source: "warehouse" },
      { event_id: "b-2", source: "warehouse" },
    ]);
    expect(first.body.discarded).toBe(2);
    expect(typeof first.body.next_cursor).toBe("string");
    const second = await discardAll(t.id, { limit: 2, cursor: first.body.next_cursor });
    expect(second.body).toEqual({
      results: [{ event_id: "b-3", source: "warehouse" }],
      discarded: 1,
      next_cursor: null,
    });
    // Nothing left to discard, nothing left to replay.
    expect((await discardAll(t.id)).body).toEqual({ results: [], discarded: 0, next_cursor: null });
    expect((await admin(suite.h, "POST", `/admin/webhooks/replay/${t.id}`, {})).body.results).toEqual([]);
    expect(await factsOf(suite.h, t.token)).toEqual([]);
    const log = await admin(suite.h, "GET", `/admin/webhooks/deliveries/${t.id}?outcome=discarded`);
    expect(log.body.deliveries.map((d: { event_id: string; via: string }) => [d.event_id, d.via])).toEqual([
      ["b-3", "discard"],
      ["b-2", "discard"],
      ["b-1", "discard"],
    ]);
  });

  test("filters by source, event_type and received_at as a bulk replay does; audited with counts and filters", async () => {
    const discarded = async (tenantId: string, body: unknown) =>
      ids((await discardAll(tenantId, body)).body.results);
    const t = await expectFiltersTakeOneEach(suite, discarded);
    // The one left is replayed; the discarded stay discarded.
    expect(ids((await admin(suite.h, "POST", `/admin/webhooks/replay/${t.id}`, {})).body.results)).toEqual([
      "f-3",
    ]);
    const { body } = await admin(suite.h, "GET", `/admin/webhooks/dead-letters/${t.id}?status=discarded`);
    expect(ids(body.dead_letters).sort()).toEqual(["f-1", "f-2", "w-1"]);
    const audited = await auditOf("deadletter.bulk_discarded", t.id);
    expect(audited.map((e: { details: unknown }) => e.details)).toContainEqual({
      discarded: 1,
      event_type: "workflow",
    });
    expect(audited[0]).toMatchObject({ sub: "operator", target: null });
  });

  test("counted in dead_letter_discards_total by source", async () => {
    const before = await scrape();
    const t = await withDeadLetters([fact("m-1"), fact("m-2")]);
    await discardAll(t.id, {});
    const after = await scrape();
    const metric = "memory_runtime_dead_letter_discards_total";
    const was = before.families[metric] ? before.value(metric, { source: "warehouse" }) : 0;
    expect(after.value(metric, { source: "warehouse" }) - was).toBe(2);
  });

  test("bad bodies are a 422 and discard nothing; auth and unknown tenant as the single discard", async () => {
    const t = await withDeadLetters([fact("untouched")]);
    for (const body of BAD_BULK_BODIES) {
      const r = await discardAll(t.id, body);
      expect({ body, status: r.status, code: r.body.code }).toEqual({
        body,
        status: 422,
        code: "validation_failed",
      });
    }
    expect((await letterOf(t.id, "untouched")).status).toBe("dead");
    const path = `/admin/webhooks/discard/${t.id}`;
    expect((await suite.h.json("POST", path, { body: {} })).status).toBe(401);
    expect((await suite.h.json("POST", path, { token: t.token, body: {} })).status).toBe(403);
    expect((await discardAll("01JDB2X6J3KQ5W8Z3M4N7P9R2S", {})).status).toBe(404);
  });
});

async function scrape(): Promise<Scrape> {
  await nextTurn();
  const res = await suite.h.call("GET", "/metrics", { token: suite.h.adminToken });
  expect(res.status).toBe(200);
  return Scrape.of(await res.text());
}

describe("the OpenAPI document", () => {
  test("documents both discards: the single one's answer and 409, the bulk one's optional body", async () => {
    // biome-ignore lint/suspicious/noExplicitAny: the document is read path by path
    const doc: any = await (await suite.h.call("GET", "/openapi/json")).json();
    const single = doc.paths["/admin/webhooks/discard/{tenant_id}/{event_id}"].post;
    expect(Object.keys(single.responses)).toEqual(expect.arrayContaining(["200", "404", "409", "422"]));
    expect(JSON.stringify(single.responses["200"])).toContain("DeadLetterDiscard");
    const bulk = doc.paths["/admin/webhooks/discard/{tenant_id}"].post;
    expect(bulk.requestBody.required).toBe(false);
    const replay = doc.paths["/admin/webhooks/replay/{tenant_id}/{event_id}"].post;
    expect(Object.keys(replay.responses)).toContain("409");
    const outcomes = doc.components.schemas.DeadLetter.properties.status;
    expect(JSON.stringify(outcomes)).toContain("discarded");
  });
});
