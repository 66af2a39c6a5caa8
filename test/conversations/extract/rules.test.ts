import { describe, expect, test } from "bun:test";
import { deterministicExtractor } from "../../../src/conversations/extract/deterministic.ts";
import type { ExtractedDraft, ExtractKind } from "../../../src/conversations/extract/types.ts";

const at = Date.parse("2026-03-01T10:00:00Z");
const one = (content: string, speaker = "Maya"): ExtractedDraft[] =>
  deterministicExtractor.extract([{ speaker, content, at }]);
const kinds = (content: string) => one(content).map((d) => d.kind);
const only = (content: string, kind: ExtractKind) => {
  const found = one(content).filter((d) => d.kind === kind);
  expect(found).toHaveLength(1);
  return found[0]!;
};

describe("preferences", () => {
  test("I prefer, I love, I don't like, my favourite", () => {
    expect(only("I prefer window seats on long flights.", "preference").content).toBe(
      "Maya: I prefer window seats on long flights.",
    );
    expect(kinds("I really love hiking in the Alps.")).toEqual(["preference"]);
    expect(kinds("I don't like olives")).toEqual(["preference"]);
    expect(only("My favourite colour is green.", "preference").key).toEqual({
      holder: "maya",
      attribute: "favourite colour",
    });
  });

  test("a request or a question is no preference", () => {
    expect(kinds("I'd like to book a table.")).toEqual([]);
    expect(kinds("Do you prefer tea or coffee?")).toEqual([]);
  });
});

describe("personal facts", () => {
  test("moving and living somewhere key the speaker's residence", () => {
    for (const text of ["I moved to Berlin last month.", "I now live in Lisbon.", "I'm based in New York."])
      expect(only(text, "personal").key).toEqual({ holder: "maya", attribute: "lives in" });
  });

  test("a named person's move keys that person", () => {
    expect(only("Ada moved to Rome in May.", "personal").key).toEqual({
      holder: "ada",
      attribute: "lives in",
    });
  });

  test("family, name, work, birthday, diet", () => {
    expect(only("My daughter is called Lily.", "personal").key?.attribute).toBe("daughter name");
    expect(only("My son is 7.", "personal").key?.attribute).toBe("son age");
    expect(only("My name is Maya Okafor.", "personal").key?.attribute).toBe("name");
    expect(only("I work as a nurse.", "personal").key?.attribute).toBe("occupation");
    expect(only("My birthday is on June 3rd.", "personal").key?.attribute).toBe("birthday");
    expect(kinds("I'm vegetarian.")).toEqual(["personal"]);
  });

  test("a hedge or a negation states nothing", () => {
    expect(kinds("Maybe I moved to Berlin too early.")).toEqual([]);
    expect(kinds("I never moved to Berlin.")).toEqual([]);
    expect(kinds("If I move to Paris, I'll tell you.")).toEqual([]);
  });
});

describe("decisions and commitments", () => {
  test("we decided, let's go with (the choice kept), we agreed", () => {
    expect(kinds("We decided to move billing to Postgres.")).toEqual(["decision"]);
    const chosen = only("Let's go with the blue design.", "decision");
    expect(chosen.chosen).toBe("the blue design");
    expect(chosen.category).toBe("decision");
    expect(kinds("We all agreed on a four-day week.")).toEqual(["decision"]);
  });

  test("I'll send it Friday is a commitment, written as a decision", () => {
    const c = only("I'll send it Friday.", "commitment");
    expect(c.category).toBe("decision");
    expect(kinds("I promise to review the draft tonight.")).toEqual(["commitment"]);
  });

  test("an undecided statement is neither", () => {
    expect(kinds("We haven't decided yet.")).toEqual([]);
    expect(kinds("Should we go with Rust?")).toEqual([]);
  });
});

describe("appointments", () => {
  test("an event with a date; my/our events are keyed", () => {
    const a = only("My dentist appointment is on Tuesday at 3pm.", "appointment");
    expect(a.key).toEqual({ holder: "maya", attribute: "dentist appointment date" });
    expect(only("We have a team meeting on March 4th.", "appointment").key).toBeUndefined();
  });

  test("an event without a date is none", () => {
    expect(kinds("The meeting went well.")).toEqual([]);
  });
});

describe("relationships", () => {
  test("a named person and an organisation: the triple is spans", () => {
    const r = only("Ada works at Acme Corp.", "relationship");
    expect(r.relation).toEqual({ subject: "Ada", predicate: "works at", object: "Acme Corp" });
    expect(r.key).toEqual({ holder: "ada", attribute: "works at" });
    expect(only("Tom is the CEO of Globex.", "relationship").relation?.predicate).toBe("is the CEO of");
  });

  test("I work at names the speaker as the subject", () => {
    expect(only("I work at Initech now.", "relationship").relation).toEqual({
      subject: "Maya",
      predicate: "work at",
      object: "Initech",
    });
  });

  test("a capitalised opener is no one's name", () => {
    expect(kinds("The team works at Acme.")).toEqual([]);
  });
});

describe("workflows", () => {
  test("first, then, finally", () => {
    const w = only("To deploy, first run the tests, then build the image, and finally push it.", "workflow");
    expect(w.steps).toEqual(["run the tests", "build the image", "push it"]);
    expect(w.content).toBe("Maya: To deploy, first run the tests, then build the image, and finally push it");
  });

  test("a numbered list", () => {
    expect(only("1. Open the valve 2. Wait ten minutes 3. Close it", "workflow").steps).toEqual([
      "Open the valve",
      "Wait ten minutes",
      "Close it",
    ]);
  });

  test("one step is no workflow", () => {
    expect(kinds("First of all, thanks.")).toEqual([]);
  });
});

test("every draft names its turn, its time and its category", () => {
  const turns = [
    { speaker: "Maya", content: "Hello there.", at },
    { speaker: "Sam", content: "I moved to Oslo.", at: at + 1000 },
  ];
  const [draft] = deterministicExtractor.extract(turns);
  expect(draft).toMatchObject({
    turns: [1],
    at: at + 1000,
    category: "fact",
    content: "Sam: I moved to Oslo.",
  });
});
