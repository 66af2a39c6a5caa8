/**
 * The audited webhook operations (src/webhooks/service.ts) on fakes: the operation first, then its
 * audit record, and the answer only once the record is committed; a refused one audits nothing.
 */
import { describe, expect, test } from "bun:test";
import { NotFound } from "../../src/errors/domain-errors.ts";
import { WebhookService, type WebhookServiceDeps } from "../../src/webhooks/service.ts";
import { auditRecorder, settle } from "../helpers/audit-recorder.ts";

const TENANT = "01JTENANT0000000000000000A";

function service(opts: { hold?: Promise<void> } = {}) {
  const log: string[] = [];
  const recorder = auditRecorder(log, opts);
  const done =
    (name: string, reply: unknown) =>
    async (...args: unknown[]) => {
      log.push(`${name} ${JSON.stringify(args)}`);
      return reply;
    };
  const deps = {
    tenant: () => ({ ask: done("ask", []) }),
    ingest: { replay: done("replay", { event_id: "ev1", status: "replayed", entries: ["a", "b"] }) },
    webhooks: {
      pause: done("pause", { source: "crm", status: "paused", held: 0 }),
      resume: done("resume", { source: "crm", status: "active", held: 2 }),
      sources: done("sources", []),
      deliveries: done("deliveries", { deliveries: [], next_cursor: null }),
      bulkReplay: done("bulkReplay", { results: [], replayed: 3, dead: 1, next_cursor: "c" }),
      discard: done("discard", {
        event_id: "ev1",
        source: "crm",
        status: "discarded",
        discarded_at: "2026-01-01T00:00:00.000Z",
        discarded_by: "ops",
      }),
      bulkDiscard: done("bulkDiscard", { results: [], discarded: 4, next_cursor: null }),
    },
    audit: recorder.audit,
  } as unknown as WebhookServiceDeps;
  return { webhooks: new WebhookService(deps), log, audited: recorder.audited };
}

const asked = { tenantId: TENANT, eventId: "ev1", sub: "ops", requestId: "req-1" };

describe("WebhookService", () => {
  test("a replay: the pipeline's replay, then its audit record", async () => {
    const { webhooks, log, audited } = service();
    expect((await webhooks.replay({ ...asked, source: "crm" })).status).toBe("replayed");
    expect(log).toEqual([
      `replay ${JSON.stringify([TENANT, "ev1", "crm", "req-1"])}`,
      "audit deadletter.replayed",
      "audit committed",
    ]);
    expect(audited[0]).toEqual({
      action: "deadletter.replayed",
      sub: "ops",
      tenant_id: TENANT,
      target: "ev1",
      details: { status: "replayed", entries: 2 },
    });
  });

  test("an event id no source could send is not found: nothing asked, nothing audited", async () => {
    const { webhooks, log } = service();
    for (const eventId of ["", "x".repeat(513)]) {
      await expect(webhooks.replay({ ...asked, eventId })).rejects.toBeInstanceOf(NotFound);
      await expect(webhooks.discard({ ...asked, eventId })).rejects.toBeInstanceOf(NotFound);
    }
    expect(log).toEqual([]);
  });

  test("a discard is recorded with who discarded it and when", async () => {
    const { webhooks, log, audited } = service();
    await webhooks.discard(asked);
    expect(log[0]).toBe(
      `discard ${JSON.stringify([TENANT, { eventId: "ev1" }, { by: "ops", requestId: "req-1" }])}`,
    );
    expect(audited[0]?.details).toEqual({ source: "crm", discarded_at: "2026-01-01T00:00:00.000Z" });
  });

  test("bulk replay and discard audit their filter without its cursor or limit", async () => {
    const { webhooks, audited } = service();
    const filter = { source: "crm", event_type: "deal.won", cursor: "abc", limit: 10 };
    await webhooks.bulkReplay({ tenantId: TENANT, filter, sub: "ops", requestId: "req-2" });
    await webhooks.bulkDiscard({ tenantId: TENANT, filter, sub: "ops", requestId: "req-3" });
    const scope = { source: "crm", event_type: "deal.won", from: undefined, to: undefined };
    expect(audited.map((e) => [e.action, e.target, e.details])).toEqual([
      ["deadletter.bulk_replayed", null, { replayed: 3, dead: 1, ...scope }],
      ["deadletter.bulk_discarded", null, { discarded: 4, ...scope }],
    ]);
  });

  test("pause and resume: the source checked first, then the operation, then the audit", async () => {
    const { webhooks, log, audited } = service();
    const change = { tenantId: TENANT, sub: "ops", requestId: "req-4" };
    await expect(
      webhooks.changeSource({ ...change, source: "nope", action: "pause" }),
    ).rejects.toBeInstanceOf(NotFound);
    expect(log).toEqual([]);
    await webhooks.changeSource({ ...change, source: "crm", action: "pause" });
    await webhooks.changeSource({ ...change, source: "crm", action: "resume" });
    expect(log.filter((l) => !l.startsWith("audit"))).toEqual([
      `pause ${JSON.stringify([TENANT, "crm"])}`,
      `resume ${JSON.stringify([TENANT, "crm", "req-4"])}`,
    ]);
    expect(audited.map((e) => [e.action, e.target, e.details])).toEqual([
      ["webhook_source.paused", "crm", { held: 0 }],
      ["webhook_source.resumed", "crm", { status: "active", held: 2 }],
    ]);
  });

  test("the answer waits for the audit record to be committed", async () => {
    let commit = () => {};
    const hold = new Promise<void>((resolve) => {
      commit = resolve;
    });
    const { webhooks, log } = service({ hold });
    let answered = false;
    const replaying = webhooks.replay(asked).then(() => {
      answered = true;
    });
    await settle();
    expect(log.at(-1)).toBe("audit deadletter.replayed");
    expect(answered).toBe(false);
    commit();
    await replaying;
    expect(answered).toBe(true);
  });
});
