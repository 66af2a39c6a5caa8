/**
 * The tenant actor's outbound part writes through write sets only (src/vault/outbound-records.ts):
 * what it changes reaches the write-through (cluster mode's changelog) and, replayed on an empty
 * vault, rebuilds the same subscriptions and delivery logs; reads see writes still committing; the
 * size ceiling refuses what adds data and lets a deletion through.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { outboundHandlers, skipImportedHistory } from "../../../actors/tenant/outbound/handlers.ts";
import { decodeWriteSet, encodeWriteSet } from "../../../src/cluster/changelog.ts";
import { DELIVERY_LOG_LIMIT, type Delivery } from "../../../src/models/subscription.ts";
import type { NewSubscription, OutboundTenantProtocol } from "../../../src/protocols/outbound-protocol.ts";
import { Later } from "../../../src/runtime/later.ts";
import type { Handlers } from "../../../src/runtime/protocol.ts";
import { TenantVault, type VaultOptions, type WriteSet } from "../../../src/vault/tenant-vault.ts";

const dirs: string[] = [];
const vaults: TenantVault[] = [];
afterEach(async () => {
  await Promise.all(vaults.splice(0).map((v) => v.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function openVault(
  options: VaultOptions = {},
  dir = mkdtempSync(join(tmpdir(), "mr-outbound-ws-")),
): TenantVault {
  if (!dirs.includes(dir)) dirs.push(dir);
  const vault = new TenantVault(dir, options);
  vaults.push(vault);
  return vault;
}

/** The handlers over `vault`; event data is not asked for here. */
function handlersOf(vault: TenantVault): Handlers<OutboundTenantProtocol> {
  return outboundHandlers({ vault } as Parameters<typeof outboundHandlers>[0]);
}

/** A handler's reply, whether answered at once or after its commit. */
async function reply<T>(answer: T | Promise<T> | Later<T> | Promise<Later<T>>): Promise<T> {
  const settled = await answer;
  return settled instanceof Later ? settled.promise : settled;
}

let n = 0;
function subscription(): NewSubscription {
  n++;
  return {
    id: `sub_01JZ0000000000000000000${String(n).padStart(3, "0")}`,
    url: "http://127.0.0.1:9/hook",
    events: ["entry.created"],
    secret: "whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
    created_at: "2026-12-02T00:00:00.000Z",
  };
}

function delivery(seq: number): Delivery {
  return {
    at: "2026-12-02T00:00:01.000Z",
    webhook_id: `msg_t_${seq}`,
    change_seq: seq,
    type: "entry.created",
    attempt: 1,
    status: 200,
    outcome: "delivered",
    duration_ms: 3,
  };
}

/** Everything the outbound part holds, as its messages answer it. */
async function outboundState(h: Handlers<OutboundTenantProtocol>) {
  const list = await reply(h["subscription.list"]({ type: "subscription.list" }));
  const logs = await Promise.all(
    list.map((s) =>
      reply(
        h["subscription.deliveries"]({
          type: "subscription.deliveries",
          id: s.id,
          limit: DELIVERY_LOG_LIMIT + 10,
        }),
      ),
    ),
  );
  return { list, logs };
}

describe("outbound writes are write sets", () => {
  test("the write-through sees every change; replayed on an empty vault they rebuild the same state", async () => {
    const logged: unknown[] = [];
    const owner = openVault({
      writeThrough: async (set, commit) => {
        await commit(set);
        logged.push(encodeWriteSet(set));
      },
    });
    const h = handlersOf(owner);
    const kept = await reply(
      h["subscription.create"]({ type: "subscription.create", subscription: subscription(), max: 20 }),
    );
    const dropped = await reply(
      h["subscription.create"]({ type: "subscription.create", subscription: subscription(), max: 20 }),
    );
    // More records than the bounded log keeps, over two messages: the oldest fall out.
    const first = Array.from({ length: DELIVERY_LOG_LIMIT }, (_, i) => delivery(i + 1));
    await reply(
      h["outbound.record"]({
        type: "outbound.record",
        id: kept.id,
        patch: { position: 150 },
        deliveries: first,
      }),
    );
    await reply(
      h["outbound.record"]({
        type: "outbound.record",
        id: kept.id,
        patch: { position: 205, status: "disabled", disabled_at: "2026-12-02T00:00:02.000Z" },
        deliveries: [201, 202, 203, 204, 205].map(delivery),
      }),
    );
    await reply(h["subscription.enable"]({ type: "subscription.enable", id: kept.id }));
    await reply(
      h["outbound.record"]({ type: "outbound.record", id: dropped.id, patch: {}, deliveries: [delivery(1)] }),
    );
    expect(await reply(h["subscription.delete"]({ type: "subscription.delete", id: dropped.id }))).toEqual({
      deleted: dropped.id,
      active: 1,
    });
    await skipImportedHistory(owner, 300);
    expect(logged.every((set) => (decodeWriteSet(set) as WriteSet).outbound !== undefined)).toBe(true);

    const before = await outboundState(h);
    expect(before.list.map((s) => [s.id, s.status, s.position])).toEqual([[kept.id, "active", 300]]);
    expect(before.logs[0]).toHaveLength(DELIVERY_LOG_LIMIT);
    expect(before.logs[0]![0]!.change_seq).toBe(205);
    expect(before.logs[0]!.at(-1)!.change_seq).toBe(6);

    const survivor = openVault();
    for (const set of logged) await survivor.write(decodeWriteSet(set));
    expect(await outboundState(handlersOf(survivor))).toEqual(before);
    // The deleted subscription left no delivery record behind.
    const rows = [...survivor.tablesOf("outbound").deliveries.getKeys()];
    expect(rows.filter(([id]) => id === dropped.id)).toEqual([]);
  });

  test("each message reads what the ones before it wrote, committed or not", async () => {
    const vault = openVault();
    const h = handlersOf(vault);
    const asked = [0, 1, 2].map(() =>
      h["subscription.create"]({ type: "subscription.create", subscription: subscription(), max: 3 }),
    );
    // Not one of the three has committed yet: the fourth is refused all the same.
    expect(() =>
      h["subscription.create"]({ type: "subscription.create", subscription: subscription(), max: 3 }),
    ).toThrow("a tenant holds at most 3 subscriptions");
    const [a] = await Promise.all(asked.map(reply));
    const recorded = [1, 2].map((seq) =>
      h["outbound.record"]({
        type: "outbound.record",
        id: a!.id,
        patch: { position: seq },
        deliveries: [delivery(seq)],
      }),
    );
    const removed = h["subscription.delete"]({ type: "subscription.delete", id: a!.id });
    await Promise.all([...recorded.map(reply), reply(removed)]);
    const { list } = await outboundState(h);
    expect(list).toHaveLength(2);
    expect(list.map((s) => s.id)).not.toContain(a!.id);
    // The records still committing when it was deleted went with it.
    const rows = [...vault.tablesOf("outbound").deliveries.getKeys()];
    expect(rows.filter(([id]) => id === a!.id)).toEqual([]);
  });

  test("at the vault's size ceiling a new subscription is a 507; a deletion is let through", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mr-outbound-ws-"));
    const roomy = openVault({}, dir);
    const s = await reply(
      handlersOf(roomy)["subscription.create"]({
        type: "subscription.create",
        subscription: subscription(),
        max: 20,
      }),
    );
    await roomy.close();
    const full = openVault({ maxBytes: 1 }, dir);
    const h = handlersOf(full);
    const refused = reply(
      h["subscription.create"]({ type: "subscription.create", subscription: subscription(), max: 20 }),
    );
    await expect(refused).rejects.toMatchObject({ status: 507 });
    expect(await reply(h["subscription.delete"]({ type: "subscription.delete", id: s.id }))).toEqual({
      deleted: s.id,
      active: 0,
    });
    expect(await reply(h["subscription.list"]({ type: "subscription.list" }))).toEqual([]);
  });
});

describe("a vault closed while an outbound commit finishes", () => {
  // An erasure restarts the tenant actor, closing its vault while a delivery worker's record may still
  // be committing: the answer must come from the actor's turn, never from a read of the closed vault.
  test("record and delete answer the active count taken before the close", async () => {
    const vault = openVault();
    const h = handlersOf(vault);
    const a = await reply(
      h["subscription.create"]({ type: "subscription.create", subscription: subscription(), max: 20 }),
    );
    const b = await reply(
      h["subscription.create"]({ type: "subscription.create", subscription: subscription(), max: 20 }),
    );
    const recorded = reply(
      h["outbound.record"]({
        type: "outbound.record",
        id: a.id,
        patch: { position: 1 },
        deliveries: [delivery(1)],
      }),
    );
    const removed = reply(h["subscription.delete"]({ type: "subscription.delete", id: b.id }));
    const closing = vault.close();
    expect(await recorded).toEqual({ found: true, active: 2 });
    expect(await removed).toEqual({ deleted: b.id, active: 1 });
    await closing;
    expect(vault.isOpen).toBe(false);
  });
});
