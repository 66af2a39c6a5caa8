import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Harness, startHarness } from "../helpers/harness.ts";

/**
 * The source spread of POST /memory/search (docs/embedding-and-search.md, "Source spread"): when
 * one source holds every place, each other source with a candidate that shares the query's rarest
 * word with the best result (its anchor: here the company's name) gets its best one in, displacing
 * the weakest result of the source holding the most places.
 */

type Result = {
  entry: { id: string; content: string; source?: { system: string } };
  score: number;
  explain?: { relevance: number; source_spread?: true };
};

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

async function write(token: string, content: string, system?: string): Promise<string> {
  const body = system ? { content, source: { system } } : { content };
  const res = await h.json("POST", "/memory/facts", { token, body });
  if (res.status !== 201) throw new Error(`write: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

async function search(token: string, body: Record<string, unknown>): Promise<Result[]> {
  const res = await h.json("POST", "/memory/search", { token, body });
  if (res.status !== 200) throw new Error(`search: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.results;
}

/**
 * Eight CRM entries that match "Kestrel Foods deal" fully, each a stage of the same deal, and
 * other companies' deals: "Kestrel" is the query's rarest word.
 */
async function crmHeavyTenant(system?: string) {
  const { token } = await h.createTenant();
  for (let i = 0; i < 8; i++) await write(token, `Kestrel Foods deal moved to stage ${i + 1}`, system);
  for (const name of ["Harbor Mills", "Osprey Labs", "Linden Works", "Quarry Media"])
    for (let i = 0; i < 3; i++) await write(token, `${name} deal moved to stage ${i + 1}`, system);
  return { token };
}

describe("source spread", () => {
  let token: string;
  let invoice: string;
  let otherDeal: string;
  beforeAll(async () => {
    ({ token } = await crmHeavyTenant("crm"));
    invoice = await write(token, "Invoice INV-7 payment failed for Kestrel Foods", "payments");
    // A helpdesk entry about a deal, but not Kestrel's: it does not share the anchor.
    otherDeal = await write(token, "Ticket: the Harbor Mills deal page does not load", "helpdesk");
  });

  test("a source with a close candidate gets a place; the first result does not move", async () => {
    const plain = await search(token, { query: "Kestrel Foods deal", limit: 20 });
    const byScore = plain.map((r) => r.entry.id);
    // Below the first 5 by score alone: every place would be the CRM's.
    expect(byScore.indexOf(invoice)).toBeGreaterThanOrEqual(5);
    const results = await search(token, { query: "Kestrel Foods deal", limit: 5, explain: true });
    expect(results).toHaveLength(5);
    expect(results[0]!.entry.id).toBe(byScore[0]!);
    const lifted = results.filter((r) => r.explain?.source_spread);
    expect(lifted.map((r) => r.entry.id)).toEqual([invoice]);
    // It displaced the weakest CRM result.
    expect(results.map((r) => r.entry.source?.system)).toEqual(["crm", "crm", "crm", "crm", "payments"]);
    // The kept results stay in score order.
    const scores = results.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  test("an entry of a missing source about another thing is not lifted", async () => {
    const wide = await search(token, { query: "Kestrel Foods deal", limit: 30 });
    expect(wide.map((r) => r.entry.id)).toContain(otherDeal);
    const results = await search(token, { query: "Kestrel Foods deal", limit: 5 });
    expect(results.map((r) => r.entry.id)).not.toContain(otherDeal);
  });

  test("results of one source only, or without sources, keep their order by score", async () => {
    const own = await crmHeavyTenant();
    const results = await search(own.token, { query: "Kestrel Foods deal", limit: 5, explain: true });
    expect(results.some((r) => r.explain?.source_spread)).toBe(false);
    const wide = await search(own.token, { query: "Kestrel Foods deal", limit: 20 });
    expect(results.map((r) => r.entry.id)).toEqual(wide.slice(0, 5).map((r) => r.entry.id));
  });

  test("a diversity control replaces the spread: MMR alone chooses", async () => {
    const results = await search(token, {
      query: "Kestrel Foods deal",
      limit: 5,
      diversity: 0.01,
      explain: true,
    });
    expect(results.some((r) => r.explain?.source_spread)).toBe(false);
  });
});
