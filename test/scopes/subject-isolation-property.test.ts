import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { denialsOf } from "../helpers/api.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { testSeed } from "../helpers/random.ts";

/**
 * Subject isolation as a property, as test/isolation/ does for tenants: in random worlds of one
 * tenant, subject-restricted tokens (reading unscoped entries or not) and random writes (own
 * subject, another, none), reads, retractions, filtered lists and searches, every status is the
 * model's, no answer carries a marker the token may not see, and every 403 is in the audit log the
 * moment it is answered (and no other answer adds a denial). Seeded: `TEST_SEED=<seed>` replays it.
 */
const NUM_RUNS = 12;
const SUBJECTS = ["ada", "bob", "cy"] as const;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

interface Token {
  token: string;
  subject: string;
  unscoped: boolean;
}

interface Seeded {
  id: string;
  subject?: string;
  marker: string;
}

interface World {
  tenant: string;
  tokens: Token[];
  entries: Seeded[];
  markers: Record<string, string>;
  denials: number;
}

const action = fc.record({
  op: fc.constantFrom("write", "read", "retract", "list", "search"),
  token: fc.nat(),
  pick: fc.nat(),
  target: fc.constantFrom("own", "other", "none"),
});
const worldArb = fc.record({
  readsUnscoped: fc.array(fc.boolean(), { minLength: 2, maxLength: 3 }),
  actions: fc.array(action, { minLength: 5, maxLength: 14 }),
});

const unique = () => crypto.randomUUID().replaceAll("-", "").slice(0, 10);

async function build(readsUnscoped: boolean[]): Promise<World> {
  const { tenant_id: tenant, token: owner } = await h.createTenant();
  const markers: Record<string, string> = { "": `none${unique()}` };
  for (const s of SUBJECTS) markers[s] = `${s}${unique()}`;
  const tokens: Token[] = [];
  for (const [i, unscoped] of readsUnscoped.entries()) {
    const subject = SUBJECTS[i]!;
    const res = await h.json("POST", `/admin/jwt/${tenant}`, {
      token: h.adminToken,
      body: {
        roles: ["tenant_admin"],
        sub: `app-${subject}`,
        subject,
        ...(unscoped ? {} : { unscoped: "none" }),
      },
    });
    expect(res.status).toBe(201);
    tokens.push({ token: res.body.token, subject, unscoped });
  }
  const entries: Seeded[] = [];
  for (const subject of [...SUBJECTS, undefined]) {
    const marker = markers[subject ?? ""]!;
    const res = await h.json("POST", "/memory/facts", {
      token: owner,
      body: { content: `${marker} seeded tea fact`, tags: ["w"], ...(subject ? { subject } : {}) },
    });
    expect(res.status).toBe(201);
    entries.push({ id: res.body.id, subject, marker });
  }
  return { tenant, tokens, entries, markers, denials: 0 };
}

/** Whether a token may see an entry of `subject` (undefined: unscoped). */
const sees = (t: Token, subject: string | undefined) =>
  subject === undefined ? t.unscoped : subject === t.subject;

async function perform(w: World, a: Action) {
  const t = w.tokens[a.token % w.tokens.length]!;
  const other = SUBJECTS.find((s) => s !== t.subject)!;
  const entry = w.entries[a.pick % w.entries.length]!;
  let method = "GET";
  let path = "";
  let body: unknown;
  let expected = 200;
  switch (a.op) {
    case "write": {
      method = "POST";
      path = "/memory/facts";
      const subject = a.target === "own" ? t.subject : a.target === "other" ? other : undefined;
      body = {
        content: `${w.markers[t.subject]} written ${unique()}`,
        tags: ["w"],
        ...(subject ? { subject } : {}),
      };
      expected = a.target === "other" ? 403 : 201;
      break;
    }
    case "read":
      path = `/memory/facts/${entry.id}`;
      expected = sees(t, entry.subject) ? 200 : 404;
      break;
    case "retract":
      method = "DELETE";
      path = `/memory/facts/${entry.id}`;
      expected = entry.subject === t.subject ? 200 : sees(t, entry.subject) ? 403 : 404;
      break;
    case "list": {
      const filter =
        a.target === "own" ? `&subject=${t.subject}` : a.target === "other" ? `&subject=${other}` : "";
      path = `/memory/facts?tag=w&limit=500${filter}`;
      break;
    }
    case "search":
      method = "POST";
      path = "/memory/search";
      body = { query: `${w.markers[a.target === "other" ? other : t.subject]} tea`, limit: 100 };
      break;
  }
  const res = await h.call(method, path, { token: t.token, body });
  const text = await res.text();
  expect({ op: a.op, path, status: res.status }).toEqual({ op: a.op, path, status: expected });
  for (const [subject, marker] of Object.entries(w.markers))
    if (!sees(t, subject || undefined)) expect(text).not.toContain(marker);
  if (res.status === 201)
    w.entries.push({ id: JSON.parse(text).id, subject: t.subject, marker: w.markers[t.subject]! });
  if (res.status === 403) w.denials++;
  expect((await denialsOf(h, w.tenant)).length).toBe(w.denials);
  if (a.op === "list" || a.op === "search") {
    const body = JSON.parse(text);
    const found: Array<{ subject?: string }> =
      a.op === "list" ? body.items : body.results.map((r: { entry: unknown }) => r.entry);
    for (const e of found) expect(sees(t, e.subject)).toBe(true);
  }
}

type Action = {
  op: "write" | "read" | "retract" | "list" | "search";
  token: number;
  pick: number;
  target: "own" | "other" | "none";
};

test("no call of a subject-restricted token reaches another subject, and every 403 is audited at once", async () => {
  const seed = testSeed();
  try {
    await fc.assert(
      fc.asyncProperty(worldArb, async (spec) => {
        const world = await build(spec.readsUnscoped);
        for (const a of spec.actions) await perform(world, a as Action);
      }),
      { seed, numRuns: NUM_RUNS, includeErrorInReport: true },
    );
  } catch (error) {
    throw new Error(`subject isolation failed; replay with TEST_SEED=${seed}\n${(error as Error).message}`);
  }
}, 120_000);
