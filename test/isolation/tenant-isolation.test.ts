/**
 * Tenant isolation as a property (fast-check): in random worlds of tenants, roles (with category
 * narrowing) and tokens, random reads, lists, searches, writes, retractions, health checks, dead-letter
 * lists and replays never cross a tenant. Each answer is predicted from an independent model of
 * the permissions (world.ts); no answer to a tenant's token carries another tenant's marker; admin
 * routes refuse tenant tokens; and every 403 is in the audit log the moment it is answered (and no
 * other answer adds a denial). Seeded: a failure prints the seed; `TEST_SEED=<seed>` replays it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import type { Category } from "../../src/models/category.ts";
import { denialsOf } from "../helpers/api.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { testSeed } from "../helpers/random.ts";
import { PLURAL } from "../helpers/webhooks.ts";
import {
  type BuiltEntry,
  type BuiltTenant,
  type BuiltToken,
  buildWorld,
  categoryFields,
  type World,
} from "./setup.ts";
import {
  type ActionSpec,
  FREE_CATEGORIES,
  grantsMemory,
  grantsTenantRead,
  searchableCategories,
  worldArb,
} from "./world.ts";

const NUM_RUNS = 30;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** One call of an action: who calls, what, and the status the model predicts. */
interface Call {
  caller: BuiltToken | "operator";
  method: string;
  path: string;
  body?: unknown;
  expected: number;
}

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
  body: any;
  text: string;
}

test("no call crosses a tenant, and every 403 is audited at once", async () => {
  const seed = testSeed();
  try {
    await fc.assert(
      fc.asyncProperty(worldArb, async (spec) => {
        const world = await buildWorld(h, spec);
        await expectDeadLettersAsModelled(world);
        for (const action of spec.actions) await perform(world, action);
      }),
      { seed, numRuns: NUM_RUNS, includeErrorInReport: true },
    );
  } catch (error) {
    throw new Error(`tenant isolation failed; replay with TEST_SEED=${seed}\n${(error as Error).message}`);
  }
}, 120_000);

let writes = 0;

async function perform(world: World, action: ActionSpec): Promise<void> {
  const token = world.tokens[action.token % world.tokens.length]!;
  const own = world.tenants[token.tenant]!;
  const target = world.tenants[action.target % world.tenants.length]!;
  const call = plan(world, action, token, own, target);
  const answer = await send(call);
  expect({ op: action.op, method: call.method, path: call.path, status: answer.status }).toEqual({
    op: action.op,
    method: call.method,
    path: call.path,
    status: call.expected,
  });
  expectNoForeignMarker(world, call.caller === "operator" ? target : own, answer.text);
  await expectDenialsAudited(call, world);
  await checkEffects(world, action, token, own, target, answer);
}

async function send(call: Call): Promise<Answer> {
  const token = call.caller === "operator" ? h.adminToken : call.caller.token;
  const res = await h.call(call.method, call.path, { token, body: call.body });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body, text };
}

/** The request of an action and the status the permission model predicts for it. */
function plan(
  world: World,
  action: ActionSpec,
  token: BuiltToken,
  own: BuiltTenant,
  target: BuiltTenant,
): Call {
  const held = token.permissions;
  const sameTenant = own === target;
  const entry = target.entries[action.pick % target.entries.length]!;
  const category: Category = action.explicit ? action.category : entry.category;
  const entryPath = `/memory/${PLURAL[category]}/${entry.id}`;
  const found = sameTenant && entry.category === category;
  const forbiddenOr = (allowed: boolean, status: number) => (allowed ? status : 403);
  switch (action.op) {
    case "read":
      return at(
        token,
        "GET",
        entryPath,
        forbiddenOr(grantsMemory(held, "read", category), found ? 200 : 404),
      );
    case "history":
      return at(
        token,
        "GET",
        `${entryPath}/history`,
        forbiddenOr(grantsMemory(held, "read", category), found ? 200 : 404),
      );
    case "retract":
      return at(
        token,
        "DELETE",
        entryPath,
        forbiddenOr(
          grantsMemory(held, "write", category) && !outranked(held, entry, found),
          found ? 200 : 404,
        ),
      );
    case "list":
      return at(
        token,
        "GET",
        `/memory/${PLURAL[action.category]}?tag=shared&limit=500`,
        forbiddenOr(grantsMemory(held, "read", action.category), 200),
      );
    case "search":
      return planSearch(action, token, target);
    case "write":
      return planWrite(action, token, own, target);
    case "tenantHealth":
      return at(
        token,
        "GET",
        `/tenants/${target.id}/healthz`,
        sameTenant && grantsTenantRead(held) ? 200 : 403,
      );
    case "listTenants":
      return at(token, "GET", "/tenants", forbiddenOr(grantsTenantRead(held), 200));
    case "deadLetters":
      return at(token, "GET", `/admin/webhooks/dead-letters/${target.id}`, 403);
    case "replay":
      return at(token, "POST", replayPath(world, target, action.pick), 403);
    case "adminRoute":
      return { ...adminRoute(target, action.pick), caller: token, expected: 403 };
    case "operatorDeadLetters":
      return at("operator", "GET", `/admin/webhooks/dead-letters/${target.id}?limit=100`, 200);
    case "operatorReplay": {
      const eventId = world.eventIds[action.pick % world.eventIds.length]!;
      return at(
        "operator",
        "POST",
        replayPath(world, target, action.pick),
        target.deadLetters.has(eventId) ? 200 : 404,
      );
    }
  }
}

/** The trust rule: a world token (agent trust) retracts an operator's entry only with `memory:override`. */
function outranked(held: readonly string[], entry: BuiltEntry, found: boolean): boolean {
  return found && entry.trust === "operator" && !grantsMemory(held, "override", entry.category);
}

function at(caller: Call["caller"], method: string, path: string, expected: number, body?: unknown): Call {
  return { caller, method, path, expected, body };
}

function planSearch(action: ActionSpec, token: BuiltToken, target: BuiltTenant): Call {
  const allowed = searchableCategories(token.permissions);
  const categories = action.explicit ? [action.category] : undefined;
  const refused = allowed.length === 0 || (categories !== undefined && !allowed.includes(action.category));
  return at(token, "POST", "/memory/search", refused ? 403 : 200, {
    query: `${target.marker} renewal pricing`,
    tags: ["shared"],
    limit: 100,
    ...(categories ? { categories } : {}),
  });
}

function planWrite(action: ActionSpec, token: BuiltToken, own: BuiltTenant, target: BuiltTenant): Call {
  const category = writableCategory(action);
  const namesOther = action.explicit && target !== own;
  const allowed = grantsMemory(token.permissions, "write", category) && !namesOther;
  return at(token, "POST", `/memory/${PLURAL[category]}`, allowed ? 201 : 403, {
    content: `${own.marker} written ${++writes}`,
    tags: ["shared", `w${writes}`],
    ...categoryFields(category, own.marker),
    ...(action.explicit ? { tenant_id: target.id } : {}),
  });
}

function writableCategory(action: ActionSpec): Category {
  return action.category === "outcome"
    ? FREE_CATEGORIES[action.pick % FREE_CATEGORIES.length]!
    : action.category;
}

function replayPath(world: World, target: BuiltTenant, pick: number): string {
  const eventId = world.eventIds[pick % world.eventIds.length]!;
  return `/admin/webhooks/replay/${target.id}/${encodeURIComponent(eventId)}`;
}

/** Admin routes a tenant token must never pass, aimed at the target tenant. */
function adminRoute(target: BuiltTenant, pick: number): Omit<Call, "caller" | "expected"> {
  const routes: Array<Omit<Call, "caller" | "expected">> = [
    { method: "GET", path: "/admin/tenants" },
    { method: "GET", path: `/admin/roles/${target.id}` },
    { method: "POST", path: `/admin/roles/${target.id}`, body: { name: "sneaky", permissions: ["*"] } },
    { method: "POST", path: `/admin/jwt/${target.id}`, body: { roles: ["tenant_admin"], sub: "escalated" } },
    { method: "GET", path: `/admin/audit/denials/${target.id}` },
    { method: "GET", path: `/admin/tenants/${target.id}/export` },
    { method: "GET", path: `/admin/metrics/revenue-per-agent/${target.id}` },
    { method: "GET", path: `/admin/metrics/stats/${target.id}` },
    { method: "POST", path: `/admin/tenants/${target.id}/suspend` },
  ];
  return routes[pick % routes.length]!;
}

/** No other tenant's marker in an answer meant for `reader`'s tenant. */
function expectNoForeignMarker(world: World, reader: BuiltTenant, text: string): void {
  const foreign = world.tenants.filter((t) => t !== reader && text.includes(t.marker)).map((t) => t.marker);
  expect(foreign).toEqual([]);
}

/**
 * A 403 is in the caller's tenant's denial log as soon as it is answered (CONTRACT §4), and it is
 * the newest record, naming the request; any other answer leaves the log as it was.
 */
async function expectDenialsAudited(call: Call, world: World): Promise<void> {
  if (call.caller === "operator") return;
  const tenant = world.tenants[call.caller.tenant]!;
  if (call.expected === 403) tenant.denials++;
  const denials = await denialsOf(h, tenant.id);
  expect(denials.length).toBe(tenant.denials);
  if (call.expected !== 403) return;
  expect(denials[0]).toMatchObject({
    tenant_id: tenant.id,
    sub: call.caller.sub,
    roles: call.caller.roles,
    method: call.method,
    path: call.path.split("?")[0],
  });
}

/** What each answer must and must not have changed, read back with the tenants' own tokens. */
async function checkEffects(
  world: World,
  action: ActionSpec,
  token: BuiltToken,
  own: BuiltTenant,
  target: BuiltTenant,
  answer: Answer,
): Promise<void> {
  if (answer.status === 403 && (action.op === "replay" || action.op === "deadLetters")) {
    await expectDeadLettersAsModelled(world);
    return;
  }
  if (answer.status !== 200 && answer.status !== 201) {
    if (action.op === "write") await expectWriteLandedNowhere(world, action);
    if (action.op === "retract") await expectEntriesAsModelled(target);
    return;
  }
  switch (action.op) {
    case "read":
    case "retract":
      expect(answer.body).toMatchObject({
        tenant_id: own.id,
        id: target.entries[action.pick % target.entries.length]!.id,
      });
      if (action.op === "retract") markRetracted(own, answer.body.id);
      return;
    case "list":
      return expectOwnEntries(own, answer.body.items, [action.category]);
    case "search": {
      const allowed = action.explicit ? [action.category] : searchableCategories(token.permissions);
      return expectOwnEntries(
        own,
        answer.body.results.map((r: { entry: unknown }) => r.entry),
        allowed,
      );
    }
    case "write":
      expect(answer.body.tenant_id).toBe(own.id);
      own.entries.push({
        id: answer.body.id,
        category: answer.body.category,
        retracted: false,
        trust: "agent",
      });
      return expectAbsentElsewhere(world, own, answer.body.category, answer.body.id);
    case "listTenants":
      expect(answer.body.tenants.map((t: { tenant_id: string }) => t.tenant_id)).toEqual([own.id]);
      return;
    case "tenantHealth":
      expect(answer.body.tenant_id).toBe(own.id);
      return;
    case "operatorDeadLetters":
      return expectDeadLettersOf(target, answer.body.dead_letters);
    case "operatorReplay": {
      const eventId = world.eventIds[action.pick % world.eventIds.length]!;
      expect(answer.body).toMatchObject({ event_id: eventId, status: "dead" });
      target.deadLetters.set(eventId, target.deadLetters.get(eventId)! + 1);
      return expectDeadLettersAsModelled(world);
    }
  }
}

function markRetracted(tenant: BuiltTenant, id: string): void {
  for (const e of tenant.entries) if (e.id === id) e.retracted = true;
}

interface EntryLike {
  id: string;
  tenant_id: string;
  category: Category;
}

function expectOwnEntries(own: BuiltTenant, items: EntryLike[], categories: Category[]): void {
  const ownIds = new Set(own.entries.map((e) => e.id));
  for (const item of items) {
    expect({ tenant_id: item.tenant_id, known: ownIds.has(item.id) }).toEqual({
      tenant_id: own.id,
      known: true,
    });
    expect(categories).toContain(item.category);
  }
}

/** A refused write left nothing in any tenant (its unique tag finds nothing anywhere). */
async function expectWriteLandedNowhere(world: World, action: ActionSpec): Promise<void> {
  const category = writableCategory(action);
  for (const tenant of world.tenants) {
    const { status, body } = await h.json("GET", `/memory/${PLURAL[category]}?tag=w${writes}`, {
      token: tenant.ownerToken,
    });
    expect({ status, items: body.items }).toEqual({ status: 200, items: [] });
  }
}

/** A new entry is readable in its own tenant only. */
async function expectAbsentElsewhere(world: World, own: BuiltTenant, category: Category, id: string) {
  for (const tenant of world.tenants) {
    const { status } = await h.json("GET", `/memory/${PLURAL[category]}/${id}`, { token: tenant.ownerToken });
    expect({ tenant: tenant.id, status }).toEqual({ tenant: tenant.id, status: tenant === own ? 200 : 404 });
  }
}

/** A refused retraction changed nothing: every entry of the tenant is as the model has it. */
async function expectEntriesAsModelled(tenant: BuiltTenant): Promise<void> {
  for (const entry of tenant.entries) {
    const { status, body } = await h.json("GET", `/memory/${PLURAL[entry.category]}/${entry.id}`, {
      token: tenant.ownerToken,
    });
    expect({ id: entry.id, status, retracted: body.expired_at !== null }).toEqual({
      id: entry.id,
      status: 200,
      retracted: entry.retracted,
    });
  }
}

/** Every tenant's dead letters, read by the operator, are exactly the modelled ones. */
async function expectDeadLettersAsModelled(world: World): Promise<void> {
  for (const tenant of world.tenants) {
    const { status, body } = await h.json("GET", `/admin/webhooks/dead-letters/${tenant.id}?limit=100`, {
      token: h.adminToken,
    });
    expect(status).toBe(200);
    expectDeadLettersOf(tenant, body.dead_letters);
  }
}

function expectDeadLettersOf(
  tenant: BuiltTenant,
  listed: Array<{ event_id: string; tenant_id: string; attempts: number; payload: { text?: string } }>,
): void {
  const seen = Object.fromEntries(listed.map((d) => [d.event_id, d.attempts]));
  expect(seen).toEqual(Object.fromEntries(tenant.deadLetters));
  for (const d of listed)
    expect({ tenant_id: d.tenant_id, text: d.payload.text }).toEqual({
      tenant_id: tenant.id,
      text: tenant.marker,
    });
}
