/**
 * An object's timeline in event time whatever the arrival order (actors/tenant/ingest/timeline.ts),
 * as a property: for random timelines of an object (states, a close, exceptions about it) and
 * every order of delivery, with duplicates and retries, the final valid-time history and the
 * statuses are the same, and exactly one state is valid now (equal event times included: their
 * order is the events' ids, never the arrival).
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { tenantBehaviour } from "../../../actors/tenant/tenant.ts";
import type { Delivery, IngestItem } from "../../../src/ingest/ingest-item.ts";
import type { Entry, EntryDraft } from "../../../src/models/entry.ts";
import type { TenantStorage } from "../../../src/ports/runtime-ports.ts";
import type { TenantProtocol } from "../../../src/protocols/tenant-protocol.ts";
import { ActorSystem } from "../../../src/runtime/actor-system.ts";
import { ManualClock } from "../../../src/runtime/clock.ts";
import type { Lifecycle } from "../../../src/sources/types.ts";
import { TenantVault } from "../../../src/vault/tenant-vault.ts";

const TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
const dir = mkdtempSync(join(tmpdir(), "mrt-timeline-"));
const clock = new ManualClock(Date.parse("2027-01-01T00:00:00.000Z"));
const system = new ActorSystem({ clock, idleMs: Number.POSITIVE_INFINITY });
const storage: TenantStorage = {
  openVault: (_id, path, options) => new TenantVault(path, options),
  sealImport: async () => undefined,
};
const tenant = system
  .kind<TenantProtocol>("tenant", (id) =>
    tenantBehaviour(id, { dataDir: dir, storage, clock, dims: 8, tellSelf: () => undefined }),
  )
  .ref(TENANT);
afterAll(async () => {
  await system.stopAll();
  rmSync(dir, { recursive: true, force: true });
});

/** One event of an object's life: a state, its close, or an exception about it (a member). */
interface Step {
  day: number;
  role: Lifecycle | "member";
}

const DAY = 86_400_000;
const T0 = Date.parse("2026-01-01T00:00:00.000Z");
let objects = 0;

/** The event of a step, for object `object`: its id is its own, whatever delivery carries it. */
function itemOf(object: string, step: Step, index: number): IngestItem {
  const category = step.role === "state" ? "decision" : "exception";
  const draft = {
    category,
    content: `${object}: ${step.role} ${index}`,
    valid_from: new Date(T0 + step.day * DAY).toISOString(),
  } as EntryDraft;
  const lifecycle = step.role === "member" ? {} : { lifecycle: step.role };
  return {
    event: { event_id: `${object}:${index}`, event_type: step.role, payload: {} },
    result: { ok: true, drafts: [{ draft, object_key: `src:${object}`, ...lifecycle }] },
  };
}

/** Delivers the steps in `order` (indexes, repeated for duplicates); answers each step's entry. */
async function played(steps: Step[], order: number[]): Promise<Entry[]> {
  const object = `deal-${++objects}`;
  const ids = new Map<number, string>();
  for (const i of order) {
    const delivery: Delivery = { source: "src", headers: {}, items: [itemOf(object, steps[i]!, i)] };
    const summary = await tenant.ask({ type: "webhook.ingest", delivery });
    if (summary.entries[0]) ids.set(i, summary.entries[0]);
  }
  const entries: Entry[] = [];
  for (const [i, step] of steps.entries()) {
    const category = step.role === "state" ? "decision" : "exception";
    entries.push(await tenant.ask({ type: "entry.get", category, id: ids.get(i)!, includeEmbedding: false }));
  }
  return entries;
}

/** What must not depend on the order: each step's valid time and status. */
const history = (entries: Entry[]) =>
  entries.map((e) => ({ valid_from: e.valid_from, valid_to: e.valid_to, status: e.status }));

// Days drawn from a wide range and a narrow one, so that equal event times are common.
const timelines = fc
  .array(fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 2 })), {
    minLength: 1,
    maxLength: 7,
  })
  .chain((days) =>
    fc.tuple(
      fc.constant(days),
      fc.array(fc.constantFrom<Step["role"]>("state", "state", "member", "close"), {
        minLength: days.length,
        maxLength: days.length,
      }),
    ),
  )
  .map(([days, roles]) => days.map((day, i) => ({ day, role: roles[i]! })))
  // At least one state or close: the object has a state valid now.
  .filter((steps) => steps.some((s) => s.role !== "member"));

/** Every index once, shuffled, with some delivered again (a retry, a duplicate delivery). */
const deliveries = (n: number) =>
  fc
    .tuple(
      fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
      fc.array(fc.nat({ max: n - 1 }), { maxLength: 3 }),
      fc.array(fc.nat(), { maxLength: 3 }),
    )
    .map(([order, again, at]) => {
      const out = [...order];
      for (const [k, i] of again.entries()) out.splice((at[k] ?? 0) % (out.length + 1), 0, i);
      return out;
    });

test("any delivery order of an object's timeline leaves the same valid-time history, one state valid now", async () => {
  await fc.assert(
    fc.asyncProperty(
      timelines.chain((steps) => fc.tuple(fc.constant(steps), deliveries(steps.length))),
      async ([steps, order]) => {
        const inTime = [...steps.keys()].sort((a, b) => steps[a]!.day - steps[b]!.day);
        const expected = history(await played(steps, inTime));
        const got = await played(steps, order);
        expect(history(got)).toEqual(expected);
        const current = got.filter((e, i) => steps[i]!.role !== "member" && e.valid_to === null);
        expect(current).toHaveLength(1);
        // The state valid now is the latest in event time.
        const last = Math.max(...steps.filter((s) => s.role !== "member").map((s) => s.day));
        expect(current[0]!.valid_from).toBe(new Date(T0 + last * DAY).toISOString());
      },
    ),
    { numRuns: 60 },
  );
}, 120_000);

test("a close resolves the decisions and exceptions it ends; what comes after it stays open", async () => {
  const steps: Step[] = [
    { day: 1, role: "state" },
    { day: 2, role: "member" },
    { day: 3, role: "close" },
    { day: 4, role: "state" },
    { day: 5, role: "member" },
  ];
  const entries = await played(steps, [4, 2, 0, 3, 1]);
  expect(entries.map((e) => e.status)).toEqual(["resolved", "resolved", "resolved", "open", "open"]);
  expect(entries.map((e) => e.valid_to)).toEqual([
    new Date(T0 + 3 * DAY).toISOString(),
    null,
    new Date(T0 + 4 * DAY).toISOString(),
    null,
    null,
  ]);
});

test("an object written before timelines were kept: its latest entry is the state the next one ends", async () => {
  const object = `deal-${++objects}`;
  // What an earlier runtime left: the objects index naming the object's latest entry, no timeline.
  const old: IngestItem = {
    event: { event_id: `${object}:old`, event_type: "state", payload: {} },
    result: {
      ok: true,
      drafts: [
        {
          draft: {
            category: "fact",
            content: `${object}: old state`,
            valid_from: new Date(T0).toISOString(),
          },
          object_key: `src:${object}`,
        },
      ],
    },
  };
  const first = await tenant.ask({
    type: "webhook.ingest",
    delivery: { source: "src", headers: {}, items: [old] },
  });
  const next = itemOf(object, { day: 3, role: "close" }, 1);
  await tenant.ask({ type: "webhook.ingest", delivery: { source: "src", headers: {}, items: [next] } });
  const ended = await tenant.ask({
    type: "entry.get",
    category: "fact",
    id: first.entries[0]!,
    includeEmbedding: false,
  });
  expect(ended.valid_to).toBe(new Date(T0 + 3 * DAY).toISOString());
});
