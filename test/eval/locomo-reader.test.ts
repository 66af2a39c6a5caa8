import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { categoryName } from "../../bench/eval/categories.ts";
import { formatSessionStamp } from "../../bench/eval/dataset/time.ts";
import {
  EvalSetInvalid,
  evidenceIds,
  readLocomo,
  readLocomoFile,
  readLocomoText,
  subset,
} from "../../bench/eval/locomo.ts";
import { parseSessionStamp } from "../../bench/eval/locomo-date.ts";

const FIXTURE = join(import.meta.dir, "fixtures", "tiny-locomo.json");

describe("the LoCoMo reader", () => {
  const set = readLocomoFile(FIXTURE, "tiny");
  const [conversation] = set.conversations;

  test("reads each sample's speakers, and its sessions in numeric order (session_10 after session_2)", () => {
    expect(set.conversations).toHaveLength(1);
    expect(conversation!.id).toBe("tiny-1");
    expect(conversation!.speakers).toEqual(["Ana", "Ben"]);
    expect(conversation!.sessions).toBe(3);
    expect(conversation!.turns.map((t) => t.id)).toEqual([
      "D1:1",
      "D1:2",
      "D1:3",
      "D2:1",
      "D2:2",
      "D10:1",
      "D10:2",
    ]);
    expect(conversation!.turns.map((t) => t.session)).toEqual([1, 1, 1, 2, 2, 10, 10]);
    expect(conversation!.turns[2]!.text).toBe("She is three and loves the park.");
  });

  test("dates each turn at its session's stamp plus a minute per earlier turn; an unreadable stamp follows the previous session by a day", () => {
    const at = (id: string) => conversation!.turns.find((t) => t.id === id)!.validFrom.toISOString();
    expect(at("D1:1")).toBe("2023-05-08T13:56:00.000Z");
    expect(at("D1:3")).toBe("2023-05-08T13:58:00.000Z");
    expect(at("D2:1")).toBe("2023-05-09T13:56:00.000Z");
    expect(at("D10:2")).toBe("2023-07-02T09:06:00.000Z");
  });

  test("reads evidence in every form it comes in, keeps only turns that exist, and names categories", () => {
    const byQuestion = new Map(conversation!.questions.map((q) => [q.question, q]));
    expect(byQuestion.get("What is the name of Ana's beagle?")).toEqual({
      question: "What is the name of Ana's beagle?",
      category: "single-hop",
      evidence: ["D1:1"],
    });
    expect(byQuestion.get("Where did Ben's sister move, and what did Ana adopt?")!.evidence).toEqual([
      "D2:1",
      "D1:1",
    ]);
    expect(byQuestion.get("Where did Ben's sister move, and what did Ana adopt?")!.category).toBe(
      "multi-hop",
    );
    expect(byQuestion.get("When did Ben run the half marathon?")!.evidence).toEqual(["D10:1"]);
    expect(byQuestion.get("When did Ben run the half marathon?")!.category).toBe("temporal");
    expect(byQuestion.get("Which continent is Lisbon in?")!.category).toBe("open-domain");
    expect(byQuestion.get("How old is Ana's pet?")).toMatchObject({
      category: "paraphrase",
      evidence: ["D1:3"],
    });
  });

  test("leaves out adversarial questions and questions without a usable evidence turn, and counts them", () => {
    expect(conversation!.questions).toHaveLength(5);
    expect(set.skipped).toEqual({ unscored_category: 1, no_evidence: 2, unknown_evidence_ids: 2 });
  });

  test("identifies the text it read by its SHA-256", async () => {
    const text = await Bun.file(FIXTURE).text();
    const digest = new Bun.CryptoHasher("sha256").update(text).digest("hex");
    expect(set.sha256).toBe(digest);
    expect(readLocomoText(` ${text}`, "tiny").sha256).not.toBe(digest);
  });
});

describe("malformed input", () => {
  test("is refused with a message naming what is wrong", () => {
    expect(() => readLocomo([], "empty")).toThrow(EvalSetInvalid);
    expect(() => readLocomo([{ sample_id: "s", qa: [] }], "x")).toThrow(
      /sample 0 \(s\): no conversation object/,
    );
    expect(() => readLocomo([{ sample_id: "s", conversation: { speaker_a: "A" }, qa: [] }], "x")).toThrow(
      /no session_<n> arrays/,
    );
    expect(() =>
      readLocomo([{ sample_id: "s", conversation: { session_1: [{ speaker: "A" }] }, qa: [] }], "x"),
    ).toThrow(/session_1\[0\]: a turn needs text and dia_id/);
    expect(() => readLocomoText("{not json", "broken.json")).toThrow(/broken.json is not JSON/);
    expect(() => readLocomoFile("/nonexistent/locomo.json")).toThrow(
      /cannot read \/nonexistent\/locomo.json/,
    );
  });
});

describe("pieces of the format", () => {
  test("evidence ids are found in lists, in one string holding several, and with stray spaces", () => {
    expect(evidenceIds(["D1:3"])).toEqual(["D1:3"]);
    expect(evidenceIds(["D8:6; D9:17", "D8:6"])).toEqual(["D8:6", "D9:17"]);
    expect(evidenceIds("D 2 : 04")).toEqual(["D2:4"]);
    expect(evidenceIds([3, null, "none"])).toEqual([]);
    expect(evidenceIds(undefined)).toEqual([]);
  });

  test("categories: LoCoMo's numbers, this set's paraphrase (6), names, and anything else as given", () => {
    expect([1, 2, 3, 4, 5, 6].map(categoryName)).toEqual([
      "multi-hop",
      "temporal",
      "open-domain",
      "single-hop",
      "adversarial",
      "paraphrase",
    ]);
    expect(categoryName("4")).toBe("single-hop");
    expect(categoryName(" Temporal ")).toBe("temporal");
    expect(categoryName(9)).toBe("category-9");
    expect(categoryName(undefined)).toBe("uncategorised");
  });

  test("session stamps: LoCoMo's form both ways, ISO dates, and nothing else", () => {
    const date = new Date(Date.UTC(2022, 11, 31, 0, 5));
    expect(formatSessionStamp(date)).toBe("12:05 am on 31 December, 2022");
    expect(parseSessionStamp(formatSessionStamp(date))).toEqual(date);
    expect(parseSessionStamp("12:30 pm on 1 Jan, 2024")).toEqual(new Date(Date.UTC(2024, 0, 1, 12, 30)));
    expect(parseSessionStamp("2023-03-04T05:06:07Z")).toEqual(new Date("2023-03-04T05:06:07Z"));
    expect(parseSessionStamp("13:00 on Friday")).toBeUndefined();
    expect(parseSessionStamp(42)).toBeUndefined();
  });
});

describe("subset", () => {
  test("keeps the first conversations and spreads the kept questions across each list", () => {
    const set = readLocomoFile(FIXTURE, "tiny");
    const small = subset(set, 1, 2);
    expect(small.name).toBe("tiny (small)");
    const all = set.conversations[0]!.questions.map((q) => q.question);
    expect(small.conversations[0]!.questions.map((q) => q.question)).toEqual([all[0]!, all[2]!]);
    expect(small.conversations[0]!.turns).toBe(set.conversations[0]!.turns);
  });
});
