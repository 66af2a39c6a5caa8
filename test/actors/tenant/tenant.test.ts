import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tenantBehaviour } from "../../../actors/tenant/tenant.ts";
import { singleNodeStorage } from "../../../src/ports/runtime-ports.ts";
import type { TenantProtocol } from "../../../src/protocols/tenant-protocol.ts";
import { ActorSystem } from "../../../src/runtime/actor-system.ts";
import { ManualClock } from "../../../src/runtime/clock.ts";

/**
 * The tenant actor never answers from a pending write before that write commits (issue: a
 * `kill -9` between the answer and the commit lost entries clients held a 200 for). A commit
 * completes on lmdb-js's writer thread and is reported back as a later event-loop callback, so a
 * reply that settles within a burst of microtasks cannot have waited for it.
 */
const TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
const dir = mkdtempSync(join(tmpdir(), "mrt-tenant-actor-"));
const clock = new ManualClock();
const system = new ActorSystem({ clock, idleMs: Number.POSITIVE_INFINITY });
const tenants = system.kind<TenantProtocol>("tenant", (id) =>
  tenantBehaviour(id, {
    dataDir: dir,
    storage: singleNodeStorage,
    clock,
    dims: 8,
    tellSelf: () => undefined,
  }),
);
const tenant = tenants.ref(TENANT);

afterAll(async () => {
  await system.stopAll();
  rmSync(dir, { recursive: true, force: true });
});

async function settledWithinMicrotasks(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void p.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < 50; i++) await Promise.resolve();
  return settled;
}

const create = (content: string, idempotencyKey?: string) =>
  tenant.ask({
    type: "entry.create",
    draft: { category: "fact", content },
    createdBy: "agent",
    idempotencyKey,
  });

describe("tenant actor: acknowledgements follow commits", () => {
  test("an idempotent replay of an uncommitted write waits for that write's commit", async () => {
    await create("warm up"); // the actor is started and its vault open
    const first = create("keyed", "k-1");
    const second = create("keyed", "k-1");
    expect(await settledWithinMicrotasks(second)).toBe(false);
    const [a, b] = await Promise.all([first, second]);
    expect([a.status, b.status]).toEqual([201, 200]);
    expect(b.entry.id).toBe(a.entry.id);
  });

  test("identical content written twice at once: the second answer waits for the first's commit", async () => {
    const first = create("same canonical content");
    const second = create("same canonical content");
    expect(await settledWithinMicrotasks(second)).toBe(false);
    const [a, b] = await Promise.all([first, second]);
    expect([a.status, b.status]).toEqual([201, 200]);
  });

  test("reading an entry whose write is in flight waits for its commit", async () => {
    const write = create("read me early");
    const id = (await Promise.race([write, Promise.resolve(undefined)]))?.entry.id;
    expect(id).toBeUndefined(); // the write itself is not acknowledged yet
    const list = tenant.ask({
      type: "entry.list",
      category: "fact",
      limit: 10,
      validAt: clock.now(),
      asOf: clock.now(),
      includeEmbedding: false,
    });
    expect(await settledWithinMicrotasks(list)).toBe(false);
    expect((await list).items.map((e) => e.content)).toContain("read me early");
    await write;
  });

  test("a duplicate webhook delivery of an uncommitted event waits for that event's commit", async () => {
    const item = {
      event: { event_id: "ev-77", event_type: "t", payload: {} },
      result: {
        ok: true as const,
        drafts: [{ draft: { category: "fact" as const, content: "from a hook" } }],
      },
    };
    const delivery = { source: "data", items: [item], headers: {} };
    const first = tenant.ask({ type: "webhook.ingest", delivery });
    const again = tenant.ask({ type: "webhook.ingest", delivery });
    expect(await settledWithinMicrotasks(again)).toBe(false);
    const [a, b] = await Promise.all([first, again]);
    expect([a.accepted, a.duplicates, b.accepted, b.duplicates]).toEqual([1, 0, 0, 1]);
  });
});
