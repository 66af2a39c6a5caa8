/**
 * SubscriptionService (src/subscriptions/service.ts) on fakes: every change is the actor's write,
 * then the worker's reconcile, then the audit record, and the answer waits for the audit.
 */
import { describe, expect, test } from "bun:test";
import type { TenantProtocol } from "../../src/protocols/tenant-protocol.ts";
import type { ActorRef } from "../../src/runtime/actor-system.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { SubscriptionService } from "../../src/subscriptions/service.ts";
import { auditRecorder, settle } from "../helpers/audit-recorder.ts";

const TENANT = "01JTENANT0000000000000000A";
const view = { id: "sub_1", position: 7 };

/** A service on fakes that log, in order, what each collaborator was asked. */
function fakes(opts: { hold?: Promise<void>; fail?: Error } = {}) {
  const log: string[] = [];
  const asked: Array<Record<string, unknown>> = [];
  const { audit, audited } = auditRecorder(log, opts);
  const actor = {
    key: TENANT,
    tell() {},
    async ask(msg: Record<string, unknown> & { type: string }) {
      log.push(`ask ${msg.type}`);
      asked.push(msg);
      if (msg.type === "subscription.create") {
        const s = (msg as unknown as { subscription: Record<string, unknown> }).subscription;
        return { ...s, status: "active", position: 0 };
      }
      if (msg.type === "subscription.delete") return { deleted: msg.id, active: 0 };
      if (msg.type === "subscription.enable") return view;
      return [];
    },
  } as unknown as ActorRef<TenantProtocol>;
  const service = new SubscriptionService({
    clock: new ManualClock(Date.parse("2026-01-02T03:04:05.000Z")),
    tenant: (id) => {
      expect(id).toBe(TENANT);
      return actor;
    },
    outbound: {
      async reconcile(id) {
        log.push(`reconcile ${id}`);
      },
    },
    audit,
  });
  return { service, log, asked, audited };
}

describe("SubscriptionService", () => {
  test("create: the actor stores it, the worker is reconciled, then the audit; the secret answered once", async () => {
    const { service, log, asked, audited } = fakes();
    const created = await service.create(
      TENANT,
      { url: "https://receiver.example/hook?token=abc", events: ["entry.created"] },
      "ops",
    );
    expect(log).toEqual([
      "ask subscription.create",
      `reconcile ${TENANT}`,
      "audit subscription.created",
      "audit committed",
    ]);
    const stored = (asked[0] as { subscription: { id: string; secret: string; created_at: string } })
      .subscription;
    expect(stored.id).toMatch(/^sub_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(stored.created_at).toBe("2026-01-02T03:04:05.000Z");
    expect(stored.secret).toMatch(/^whsec_/);
    expect(created).toEqual({
      id: stored.id,
      url: "https://receiver.example/hook?token=abc",
      events: ["entry.created"],
      status: "active",
      created_at: "2026-01-02T03:04:05.000Z",
      secret: stored.secret,
    });
    // The audit keeps the URL without its query (a receiver's token) and never the secret.
    expect(audited).toEqual([
      {
        action: "subscription.created",
        sub: "ops",
        tenant_id: TENANT,
        target: stored.id,
        details: { url: "https://receiver.example/hook", events: ["entry.created"], secret_given: false },
      },
    ]);
    expect(JSON.stringify(audited)).not.toContain(stored.secret);
  });

  test("create with the receiver's secret keeps it and says it was given", async () => {
    const { service, asked, audited } = fakes();
    const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    const created = await service.create(
      TENANT,
      { url: "https://r.example/", events: ["entry.retracted"], secret },
      "ops",
    );
    expect((asked[0] as { subscription: { secret: string } }).subscription.secret).toBe(secret);
    expect(created.secret).toBe(secret);
    expect(audited[0]?.details.secret_given).toBe(true);
  });

  test("delete and enable: write, reconcile, audit, in that order", async () => {
    const { service, log, audited } = fakes();
    expect(await service.delete(TENANT, "sub_1", "ops")).toEqual({ deleted: "sub_1" });
    const enabled: unknown = await service.enable(TENANT, "sub_1", "ops");
    expect(enabled).toEqual(view);
    expect(log).toEqual([
      "ask subscription.delete",
      `reconcile ${TENANT}`,
      "audit subscription.deleted",
      "audit committed",
      "ask subscription.enable",
      `reconcile ${TENANT}`,
      "audit subscription.enabled",
      "audit committed",
    ]);
    expect(audited.map((e) => [e.action, e.target, e.details])).toEqual([
      ["subscription.deleted", "sub_1", {}],
      ["subscription.enabled", "sub_1", { position: 7 }],
    ]);
  });

  test("the answer waits for the audit record to be committed", async () => {
    let commit = () => {};
    const committed = new Promise<void>((resolve) => {
      commit = resolve;
    });
    const { service, log } = fakes({ hold: committed });
    let answered = false;
    const deleting = service.delete(TENANT, "sub_1", "ops").then(() => {
      answered = true;
    });
    // Every settled step has run: the audit is begun, not committed, so no answer yet.
    await settle();
    expect(log.at(-1)).toBe("audit subscription.deleted");
    expect(answered).toBe(false);
    commit();
    await deleting;
    expect(answered).toBe(true);
  });

  test("a failed audit fails the change's answer", async () => {
    const { service } = fakes({ fail: new Error("system store full") });
    await expect(service.enable(TENANT, "sub_1", "ops")).rejects.toThrow("system store full");
  });

  test("list and deliveries only read: no reconcile, no audit", async () => {
    const { service, log, asked } = fakes();
    await service.list(TENANT);
    await service.deliveries(TENANT, "sub_1", 20);
    expect(log).toEqual(["ask subscription.list", "ask subscription.deliveries"]);
    expect(asked[1]).toEqual({ type: "subscription.deliveries", id: "sub_1", limit: 20 });
  });
});
