import { describe, expect, test } from "bun:test";
import type { Entry } from "../../../../src/models/entry.ts";
import { CAP, episodeKey, SHARE, withEpisodes } from "../../../../src/search/controls/context/episodes.ts";

function entry(id: string, fields: Partial<Entry> = {}): Entry {
  return {
    id,
    tenant_id: "t",
    category: "fact",
    content: id,
    valid_from: "2024-05-15T10:00:00.000Z",
    valid_to: null,
    agent_id: "agent",
    recorded_at: "2024-05-15T10:00:00.000Z",
    expired_at: null,
    invalidated_at: null,
    created_by: "writer",
    ...fields,
  } as Entry;
}

describe("episode keys", () => {
  test("session_id first, then the source's delivery, then writer, tags and valid day", () => {
    const tagged = { tags: ["session-3"] };
    expect(episodeKey(entry("a", { session_id: "s1", ...tagged }))).toBe(
      episodeKey(entry("b", { session_id: "s1" })),
    );
    const delivery = { source: { system: "payments", event_id: "evt_1" } };
    expect(episodeKey(entry("a", delivery))).toBe(episodeKey(entry("b", { ...delivery, tags: ["x"] })));
    expect(episodeKey(entry("a", tagged))).toBe(
      episodeKey(entry("b", { tags: ["session-3"], valid_from: "2024-05-15T23:59:00.000Z" })),
    );
  });

  test("other tags, another day, another writer or agent: another episode", () => {
    const base = episodeKey(entry("a", { tags: ["session-3"] }));
    expect(episodeKey(entry("b", { tags: ["session-4"] }))).not.toBe(base);
    expect(episodeKey(entry("b", { tags: ["session-3"], valid_from: "2024-05-16T00:00:00.000Z" }))).not.toBe(
      base,
    );
    expect(episodeKey(entry("b", { tags: ["session-3"], created_by: "other" }))).not.toBe(base);
    expect(episodeKey(entry("b", { tags: ["session-3"], agent_id: "other" }))).not.toBe(base);
  });
});

describe("episode context", () => {
  const scores = { vector: 0, lexical: 0 };
  const entries = new Map([
    ["a1", entry("a1", { tags: ["s1"] })],
    ["a2", entry("a2", { tags: ["s1"] })],
    ["b1", entry("b1", { tags: ["s2"] })],
  ]);
  const view = (id: string) => entries.get(id);

  test("a hit among others of its episode gains a bounded share of their scores and moves up", () => {
    const hits = [
      { id: "b1", score: 0.5, scores },
      { id: "a1", score: 0.5, scores },
      { id: "a2", score: 0.4, scores },
    ];
    const out = withEpisodes(hits, view);
    expect(out.map((h) => h.id)).toEqual(["a1", "b1", "a2"]);
    expect(out[0]!.context).toBeCloseTo(SHARE * 0.4, 10);
    expect(out.find((h) => h.id === "b1")!.context).toBeUndefined();
  });

  test("the gain is at most SHARE × CAP however large the episode", () => {
    const many = new Map([...Array(50).keys()].map((i) => [`e${i}`, entry(`e${i}`, { tags: ["big"] })]));
    const hits = [...many.keys()].map((id) => ({ id, score: 0.5, scores }));
    const out = withEpisodes(hits, (id) => many.get(id));
    for (const h of out) expect(h.context).toBeCloseTo(SHARE * CAP, 10);
  });

  test("a score stays at most 1; the order is by the uncut sum", () => {
    const hits = [
      { id: "a1", score: 0.99, scores },
      { id: "b1", score: 1, scores },
      { id: "a2", score: 0.98, scores },
    ];
    const out = withEpisodes(hits, view);
    expect(out.map((h) => h.id)).toEqual(["a1", "a2", "b1"]);
    for (const h of out) expect(h.score).toBeLessThanOrEqual(1);
    // What the episode lent is said in full, though the score is cut at 1.
    expect(out[0]!.context).toBeCloseTo(SHARE * 0.98, 10);
    expect(out[0]!.score).toBe(1);
  });

  test("off: the hits as they were", () => {
    const hits = [
      { id: "b1", score: 0.5, scores },
      { id: "a1", score: 0.5, scores },
    ];
    expect(withEpisodes(hits, view, false)).toEqual(hits);
  });
});
