import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

/** Entries written together lend each other context (docs/embedding-and-search.md), through POST /memory/search. */

let h: Harness;
type Result = { entry: { id: string }; score: number; explain?: { relevance: number; context?: number } };

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

async function search(token: string, body: Record<string, unknown>): Promise<Result[]> {
  const res = await h.json("POST", "/memory/search", { token, body: { explain: true, ...body } });
  if (res.status !== 200) throw new Error(`search: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.results;
}

describe("a conversation's sessions as episodes", () => {
  let token: string;
  let told: string;
  let echo: string;
  beforeAll(async () => {
    token = (await h.createTenant()).token;
    // Two turns of one session name Lisbon; another session only echoes it, in the very same words.
    const res = await h.json("POST", "/memory/facts/batch", {
      token,
      body: {
        entries: [
          { content: "Lisbon!", tags: ["session-1"], valid_from: "2021-09-20T09:00:00Z" },
          {
            content: "The trams of Lisbon were lovely",
            tags: ["session-1"],
            valid_from: "2021-09-20T09:01:00Z",
          },
          { content: "Lisbon!", tags: ["session-2"], valid_from: "2021-10-05T18:00:00Z" },
        ],
      },
    });
    expect([200, 201]).toContain(res.status);
    [told, , echo] = res.body.entries.map((e: { id: string }) => e.id);
  });

  test("the turn among others that match ranks above the same words alone in another session", async () => {
    const results = await search(token, { query: "Lisbon" });
    const ids = results.map((r) => r.entry.id);
    expect(ids.indexOf(told)).toBeLessThan(ids.indexOf(echo));
    const byId = new Map(results.map((r) => [r.entry.id, r]));
    expect(byId.get(told)!.explain!.context).toBeGreaterThan(0);
    expect(byId.get(told)!.explain!.context).toBeLessThanOrEqual(0.1);
    expect(byId.get(echo)!.explain!.context).toBeUndefined();
  });

  test("`context: false`: each entry alone, the two echoes score the same", async () => {
    const results = await search(token, { query: "Lisbon", context: false });
    const byId = new Map(results.map((r) => [r.entry.id, r]));
    for (const r of results) expect(r.explain!.context).toBeUndefined();
    expect(byId.get(told)!.score).toBe(byId.get(echo)!.score);
  });

  test("a context that is not a boolean is a 422 problem", async () => {
    const res = await h.call("POST", "/memory/search", { token, body: { query: "x", context: 1 } });
    await expectProblem(res, 422, "validation_failed");
  });
});
