import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { tokenWithRole } from "../helpers/api.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";

/**
 * GET /memory/entities/{name} (docs/entities.md): what the tenant knows about an entity, its
 * relationships both ways and the entries naming it per category, at valid_at / as_of, with the
 * read permissions of GET /memory/{category}; and the entity hops of POST /memory/search.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

async function write(token: string, plural: string, body: Record<string, unknown>): Promise<string> {
  const res = await h.json("POST", `/memory/${plural}`, { token, body });
  if (res.status !== 201) throw new Error(`write: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

const entity = (token: string, name: string, query = "") =>
  h.json("GET", `/memory/entities/${encodeURIComponent(name)}${query}`, { token });

/** A tenant that knows Acme Logistics: relationships both ways, facts, a decision, an exception. */
async function acmeTenant() {
  const t = await h.createTenant();
  const ids = {
    supplies: await write(t.token, "relationships", {
      content: "Acme Logistics supplies Borealis Foods",
      subject: "Acme Logistics",
      predicate: "supplies",
      object: "Borealis Foods",
      valid_from: "2026-01-01T00:00:00.000Z",
    }),
    owns: await write(t.token, "relationships", {
      content: "Hartwell Group owns Acme Logistics",
      subject: "Hartwell Group",
      predicate: "owns",
      object: "Acme Logistics",
      valid_from: "2026-01-02T00:00:00.000Z",
    }),
    oldHq: await write(t.token, "facts", {
      content: "The headquarters of Acme Logistics are in Leeds",
      valid_from: "2025-01-01T00:00:00.000Z",
    }),
    decision: await write(t.token, "decisions", {
      content: "We give Acme Logistics a 10% discount",
      valid_from: "2026-02-01T00:00:00.000Z",
    }),
    ticket: await write(t.token, "exceptions", {
      content: "Ticket from Acme Logistics: the tracking page is down",
      valid_from: "2026-03-01T00:00:00.000Z",
    }),
    other: await write(t.token, "facts", { content: "Borealis Foods opened a store in Oslo" }),
  };
  const newHq = await write(t.token, "facts", {
    content: "The headquarters of Acme Logistics are in York",
    supersedes: ids.oldHq,
    valid_from: "2026-04-01T00:00:00.000Z",
  });
  return { ...t, ids: { ...ids, newHq } };
}

describe("GET /memory/entities/{name}", () => {
  let t: Awaited<ReturnType<typeof acmeTenant>>;
  beforeAll(async () => {
    t = await acmeTenant();
  });

  test("a known entity: relationships both ways, entries per category, current first", async () => {
    const res = await entity(t.token, "Acme Logistics");
    expect(res.status).toBe(200);
    expect(res.body.entity).toEqual({ key: "acme logistics", name: "Acme Logistics", kind: "name" });
    const rels = res.body.relationships.map((r: { direction: string; predicate: string; other: string }) => [
      r.direction,
      r.predicate,
      r.other,
    ]);
    expect(rels).toEqual([
      ["incoming", "owns", "Hartwell Group"],
      ["outgoing", "supplies", "Borealis Foods"],
    ]);
    const ids = (c: string) => (res.body.entries[c] ?? []).map((e: { id: string }) => e.id);
    // The superseded headquarters are not valid now: only the current one.
    expect(ids("fact")).toEqual([t.ids.newHq]);
    expect(ids("decision")).toEqual([t.ids.decision]);
    expect(ids("exception")).toEqual([t.ids.ticket]);
    expect(res.body.entries.relationship).toBeUndefined();
    const related = res.body.related.map((r: { key: string }) => r.key);
    expect(related).toContain("borealis foods");
    expect(related).toContain("hartwell group");
    expect(res.body.truncated).toBe(false);
  });

  test("case, accents and spacing do not matter; the other end is known too", async () => {
    expect((await entity(t.token, "acme  LOGISTICS")).status).toBe(200);
    const borealis = await entity(t.token, "Borealis Foods");
    expect(borealis.status).toBe(200);
    expect(borealis.body.relationships.map((r: { direction: string }) => r.direction)).toEqual(["incoming"]);
    expect(borealis.body.entries.fact.map((e: { id: string }) => e.id)).toEqual([t.ids.other]);
  });

  test("valid_at shows what was true then; as_of what was known then", async () => {
    const past = await entity(t.token, "Acme Logistics", "?valid_at=2025-06-01T00:00:00.000Z");
    expect(past.status).toBe(200);
    expect(past.body.entries.fact.map((e: { id: string }) => e.id)).toEqual([t.ids.oldHq]);
    expect(past.body.relationships).toEqual([]);
    const before = await entity(t.token, "Acme Logistics", "?as_of=2000-01-01T00:00:00.000Z");
    expect(before.status).toBe(404);
  });

  test("limit bounds each category and says it truncated", async () => {
    const res = await entity(t.token, "Acme Logistics", "?limit=1");
    expect(res.status).toBe(200);
    expect(res.body.relationships).toHaveLength(1);
    expect(res.body.truncated).toBe(true);
  });

  test("an unknown entity is a 404 problem", async () => {
    const res = await entity(t.token, "Nobody Known");
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("not_found");
    // A word seen only at a sentence's start is no entity ("The headquarters…").
    expect((await entity(t.token, "Ticket")).status).toBe(404);
  });

  test("hostile or oversized names are refused with a 4xx problem", async () => {
    for (const name of ["x".repeat(129), "<script>", "a\u0000b", "../../etc", " lead"]) {
      const res = await entity(t.token, name);
      expect({ name, status: res.status }).toEqual({ name, status: 422 });
    }
    expect((await entity(t.token, "Acme", "?limit=0")).status).toBe(422);
    expect((await entity(t.token, "Acme", "?valid_at=yesterday")).status).toBe(422);
  });

  test("a token that cannot read a category sees nothing of it", async () => {
    const factsOnly = await tokenWithRole(h, t.tenant_id, "facts-reader", ["memory:read:facts"]);
    const res = await entity(factsOnly, "Acme Logistics");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.entries)).toEqual(["fact"]);
    expect(res.body.relationships).toEqual([]);
    expect(JSON.stringify(res.body)).not.toContain(t.ids.decision);
    // Hartwell Group is named by a relationship only: unknown to this token.
    expect((await entity(factsOnly, "Hartwell Group")).status).toBe(404);
    const writer = await tokenWithRole(h, t.tenant_id, "writer-only", ["memory:write"]);
    expect((await entity(writer, "Acme Logistics")).status).toBe(403);
  });

  test("another tenant's entities are unknown", async () => {
    const other = await h.createTenant();
    expect((await entity(other.token, "Acme Logistics")).status).toBe(404);
    expect((await entity(h.adminToken, "Acme Logistics")).status).toBe(403);
  });
});

describe("the entity index over time", () => {
  test("survives a restart, drops an erased entry, and comes with an import", async () => {
    const t = await h.createTenant();
    const kept = await write(t.token, "facts", { content: "We met Quillon Dyes at the fair" });
    const erased = await write(t.token, "facts", { content: "Quillon Dyes asked for a sample" });
    await h.restart();
    const after = await entity(t.token, "Quillon Dyes");
    expect(after.body.entries.fact.map((e: { id: string }) => e.id).sort()).toEqual([kept, erased].sort());
    const erase = await h.json("POST", `/admin/tenants/${t.tenant_id}/erase`, {
      token: h.adminToken,
      body: { ids: [erased] },
    });
    expect(erase.status).toBe(200);
    const left = await entity(t.token, "Quillon Dyes");
    expect(left.body.entries.fact.map((e: { id: string }) => e.id)).toEqual([kept]);
    const exported = await h.call("GET", `/admin/tenants/${t.tenant_id}/export`, { token: h.adminToken });
    expect(exported.status).toBe(200);
    const target = await h.createTenant();
    const imported = await h.json("POST", `/admin/tenants/${target.tenant_id}/import`, {
      token: h.adminToken,
      raw: (await exported.text()).replaceAll(t.tenant_id, target.tenant_id),
      headers: { "content-type": "application/x-ndjson" },
    });
    expect(imported.status).toBe(200);
    const there = await entity(target.token, "Quillon Dyes");
    expect(there.status).toBe(200);
    expect(there.body.entries.fact.map((e: { content: string }) => e.content)).toEqual([
      "We met Quillon Dyes at the fair",
    ]);
  });
});

describe("entity hops in POST /memory/search", () => {
  test("a second hop finds the entry that names only the bridging entity", async () => {
    const t = await h.createTenant();
    const husky = await write(t.token, "facts", {
      content: "Soren: my new dog is a Siberian husky called Noodle, she is lovely",
    });
    const trick = await write(t.token, "facts", {
      content: "Soren: you won't believe it, Noodle learned to ring a bell",
    });
    for (let i = 0; i < 12; i++)
      await write(t.token, "facts", { content: `Jamal: my cousin's parrot learned trick number ${i}` });
    const res = await h.json("POST", "/memory/search", {
      token: t.token,
      body: { query: "What trick did Soren's Siberian husky learn?", limit: 3, explain: true },
    });
    expect(res.status).toBe(200);
    const ids = res.body.results.map((r: { entry: { id: string } }) => r.entry.id);
    expect(ids.slice(0, 1)).toEqual([husky]);
    expect(ids).toContain(trick);
    const bridged = res.body.results.find((r: { entry: { id: string } }) => r.entry.id === trick);
    expect(bridged.explain).toMatchObject({ entities: ["noodle"], hop: 2 });
    const first = res.body.results[0];
    expect(first.explain).toMatchObject({ entities: ["siberian"], hop: 1 });
  });
});

describe("the source spread over objects", () => {
  test("a question naming an entity shows its objects, not one object's repeats", async () => {
    const t = await h.createTenant();
    const company = { customer_name: "Quintara Labs", customer: "cus_QuintaraAA" };
    for (let i = 1; i <= 6; i++)
      await write(t.token, "outcomes", {
        content: `Payment ${i} of Quintara Labs succeeded`,
        decision_id: await write(t.token, "decisions", { content: `Bill Quintara Labs for month ${i}` }),
        result: "success",
        source: { system: "payments" },
        data: company,
      });
    const invoice = await write(t.token, "exceptions", {
      content: "An invoice of Quintara Labs failed",
      source: { system: "payments" },
      data: { ...company, invoice: "in_QuintaraFailed1" },
    });
    const ask = (entities?: false) =>
      h.json("POST", "/memory/search", {
        token: t.token,
        body: {
          query: "What do we know about Quintara Labs?",
          categories: ["outcome", "exception"],
          limit: 4,
          explain: true,
          ...(entities === false ? { entities } : {}),
        },
      });
    const plain = await ask(false);
    expect(plain.body.results.map((r: { entry: { id: string } }) => r.entry.id)).not.toContain(invoice);
    const spread = await ask();
    const results = spread.body.results as Array<{
      entry: { id: string };
      explain: { source_spread?: true; hop?: number };
    }>;
    expect(results).toHaveLength(4);
    const lifted = results.find((r) => r.entry.id === invoice);
    expect(lifted?.explain).toMatchObject({ source_spread: true, hop: 1 });
  });
});

describe("entity hops and permissions", () => {
  test("an entry a hop would pull in is never shown to a token that may not search its category", async () => {
    const t = await h.createTenant();
    const fact = await write(t.token, "facts", { content: "We met Ravenholt Ceramics at the fair" });
    const decision = await write(t.token, "decisions", { content: "Offer Ravenholt Ceramics a discount" });
    const all = await h.json("POST", "/memory/search", {
      token: t.token,
      body: { query: "What about Ravenholt Ceramics?", explain: true },
    });
    expect(all.body.results.map((r: { entry: { id: string } }) => r.entry.id).sort()).toEqual(
      [fact, decision].sort(),
    );
    const factsOnly = await tokenWithRole(h, t.tenant_id, "facts-searcher", ["memory:search:facts"]);
    const narrow = await h.json("POST", "/memory/search", {
      token: factsOnly,
      body: { query: "What about Ravenholt Ceramics?", explain: true },
    });
    expect(narrow.body.results.map((r: { entry: { id: string } }) => r.entry.id)).toEqual([fact]);
    expect(narrow.body.results[0].explain).toMatchObject({ entities: ["ravenholt ceramics"], hop: 1 });
  });
});
