import { describe, expect, test } from "bun:test";
import { Analyzer } from "../../../src/search/lexical/analyzer.ts";
import { LexicalIndex } from "../../../src/search/lexical/lexical-index.ts";

function index(docs: Record<string, string>): LexicalIndex {
  const lexical = new LexicalIndex();
  for (const [id, text] of Object.entries(docs)) lexical.add(id, text);
  return lexical;
}

const docs = {
  "00000001": "Refund approved for the damaged shipment to Acme",
  "00000002": "Quarterly planning meeting for the sales team",
  "00000003": "Shipment delayed at customs; customer informed",
  "00000004": "The team agreed the refund policy for enterprise customers",
  "00000005": "Lunch menu for the office party",
};

describe("LexicalIndex (BM25)", () => {
  test("ranks the document containing the query words first", () => {
    const hits = index(docs).search("refund damaged shipment", 5);
    expect(hits[0]?.id).toBe("00000001");
    expect(hits.map((h) => h.id)).toEqual(["00000001", "00000003", "00000004"]);
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThan(hits[i]!.score);
  });

  test("equal scores are cut by id: an index built in another order keeps the same hits", () => {
    const ids = Array.from({ length: 200 }, (_, i) => ((i * 2654435761) >>> 0).toString(16).padStart(8, "0"));
    const forward = new LexicalIndex();
    const backward = new LexicalIndex();
    for (const id of ids) forward.add(id, "the same words in every note");
    for (const id of [...ids].reverse()) backward.add(id, "the same words in every note");
    const expected = [...ids].sort().slice(0, 10);
    expect(forward.search("same words", 10).map((h) => h.id)).toEqual(expected);
    expect(backward.search("same words", 10).map((h) => h.id)).toEqual(expected);
  });

  test("a rare word outweighs a common one (idf)", () => {
    const lexical = new LexicalIndex();
    for (let i = 0; i < 50; i++) lexical.add(`c${i}`.padStart(8, "0"), `status update number ${i}`);
    lexical.add("0000rare", "status of the zeppelin order");
    lexical.add("00common", "status update status update");
    // "status" is in every document, "zeppelin" in one: the zeppelin document must win.
    expect(lexical.search("status zeppelin", 3)[0]?.id).toBe("0000rare");
  });

  test("term frequency saturates and long documents are normalised (k1, b)", () => {
    const lexical = index({
      short: "invoice overdue",
      long: `invoice overdue ${"filler ".repeat(60)}`,
      repeated: "invoice invoice invoice invoice invoice invoice",
    });
    const hits = lexical.search("invoice overdue", 3);
    expect(hits.map((h) => h.id)).toEqual(["short", "long", "repeated"]);
    const single = lexical.search("invoice", 3);
    const repeated = single.find((h) => h.id === "repeated")!.score;
    const short = single.find((h) => h.id === "short")!.score;
    // Six occurrences score more than one, but far less than six times as much.
    expect(repeated).toBeGreaterThan(short);
    expect(repeated).toBeLessThan(2.2 * short);
  });

  test("matches case- and form-insensitively, and repeated query words count once", () => {
    const lexical = index(docs);
    expect(lexical.search("REFUND", 1)[0]?.id).toBe(lexical.search("refund", 1)[0]?.id);
    expect(lexical.search("refund refund refund", 5)).toEqual(lexical.search("refund", 5));
  });

  test("accept filters results, and k limits them", () => {
    const lexical = index(docs);
    const hits = lexical.search("refund shipment team", 5, (id) => id !== "00000001");
    expect(hits.map((h) => h.id)).not.toContain("00000001");
    expect(hits[0]?.id).toBe("00000004");
    expect(lexical.search("refund shipment team", 2)).toHaveLength(2);
    expect(lexical.search("refund", 0)).toEqual([]);
  });

  test("queries without known words find nothing, and searching leaves no state behind", () => {
    const lexical = index(docs);
    expect(lexical.search("zebra", 5)).toEqual([]);
    expect(lexical.search("", 5)).toEqual([]);
    const first = lexical.search("customer shipment", 5);
    lexical.search("team refund", 5, () => false);
    expect(() =>
      lexical.search("team refund", 5, () => {
        throw new Error("filter failed");
      }),
    ).toThrow("filter failed");
    expect(lexical.search("customer shipment", 5)).toEqual(first);
  });

  test("adding an id twice is a no-op; size counts documents", () => {
    const lexical = index(docs);
    expect(lexical.size).toBe(5);
    expect(lexical.add("00000001", "something else entirely")).toBe(false);
    expect(lexical.size).toBe(5);
    expect(lexical.search("entirely", 5)).toEqual([]);
    expect(lexical.has("00000001")).toBe(true);
  });

  test("scorer gives the same BM25 as search, 0 without shared words, undefined for unknown ids", () => {
    const lexical = index(docs);
    const hits = lexical.search("refund shipment", 5);
    const score = lexical.scorer("refund shipment");
    for (const hit of hits) expect(score(hit.id)).toBeCloseTo(hit.score, 10);
    expect(score("00000005")).toBe(0);
    expect(score("ffffffff")).toBeUndefined();
  });

  test("equal scores are ordered by id", () => {
    const lexical = index({ "0000000c": "alpha beta", "0000000a": "alpha beta", "0000000b": "alpha beta" });
    expect(lexical.search("alpha", 3).map((h) => h.id)).toEqual(["0000000a", "0000000b", "0000000c"]);
  });

  test("stays correct past its initial capacity", () => {
    const lexical = new LexicalIndex();
    for (let i = 0; i < 5000; i++)
      lexical.add(i.toString(16).padStart(8, "0"), `note ${i} about topic${i % 10}`);
    lexical.add("ffffffff", "the unique marker note");
    expect(lexical.size).toBe(5001);
    expect(lexical.search("marker", 3).map((h) => h.id)).toEqual(["ffffffff"]);
    expect(lexical.search("topic3", 1000)).toHaveLength(500);
  });
});

describe("LexicalIndex: saved and read back", () => {
  test("the same answers and scores after toBytes / fromBytes; other bytes are refused", () => {
    const index = new LexicalIndex();
    const texts = [
      "refund the damaged shipment",
      "shipment delayed at customs",
      "refund policy für Kunden",
      "ñandú 東京",
    ];
    for (const [i, text] of texts.entries()) index.add(`0000000${i}`, text);
    const copy = LexicalIndex.fromBytes(index.toBytes());
    for (const query of ["refund shipment", "customs", "kunden", "東京", "ñandú"])
      expect(copy.search(query, 5)).toEqual(index.search(query, 5));
    expect(copy.size).toBe(4);
    expect(copy.add("00000000", "again")).toBe(false);
    expect(() => LexicalIndex.fromBytes(new Uint8Array(30))).toThrow();
  });
});

describe("LexicalIndex: analysis", () => {
  test("a stemmed query finds other forms of its words; stop words in it match nothing", () => {
    const lexical = index({
      "00000001": "I ran in my new shoe this morning",
      "00000002": "What a lovely morning it is",
    });
    expect(lexical.search("running shoes", 5).map((h) => h.id)).toEqual(["00000001"]);
    // "what", "is", "it" are stop words: only "lovely" counts.
    expect(lexical.search("what is it lovely", 5).map((h) => h.id)).toEqual(["00000002"]);
  });
});

describe("LexicalIndex: fields and parameters", () => {
  test("a word in a field of weight 2 counts as two occurrences; weight 0 fields are not indexed", () => {
    const lexical = new LexicalIndex();
    lexical.add("0000000a", [{ text: "billing" }, { text: "billing", weight: 1 }]);
    lexical.add("0000000b", [{ text: "billing" }, { text: "billing invoice", weight: 0 }]);
    lexical.add("0000000c", [{ text: "billing", weight: 2 }]);
    const score = lexical.scorer("billing");
    expect(score("0000000a")).toBeCloseTo(score("0000000c")!, 10);
    expect(lexical.search("invoice", 5)).toEqual([]);
  });

  test("a tag or typed field of weight 1 ranks with the content; a half-weight field below it", () => {
    const lexical = new LexicalIndex();
    lexical.add("0000000a", [{ text: "quarterly review" }, { text: "renewal", weight: 1 }]);
    lexical.add("0000000b", [{ text: "quarterly review" }, { text: "renewal", weight: 0.5 }]);
    lexical.add("0000000c", [{ text: "quarterly review" }]);
    expect(lexical.search("renewal", 5).map((h) => h.id)).toEqual(["0000000a", "0000000b"]);
  });

  test("b sets the length discount: 0 ignores length, 1 discounts fully", () => {
    const docs = { "0000000a": "refund", "0000000b": `refund ${"word ".repeat(30)}` };
    const flat = new LexicalIndex({ b: 0 });
    const full = new LexicalIndex({ b: 1 });
    for (const [id, text] of Object.entries(docs)) {
      flat.add(id, text);
      full.add(id, text);
    }
    const [short, long] = ["0000000a", "0000000b"];
    expect(flat.scorer("refund")(short)).toBeCloseTo(flat.scorer("refund")(long)!, 10);
    expect(full.scorer("refund")(short)!).toBeGreaterThan(2 * full.scorer("refund")(long)!);
  });

  test("ceiling bounds every document's score for the query", () => {
    const lexical = index(docs);
    const ceiling = lexical.ceiling("refund shipment");
    for (const hit of lexical.search("refund shipment", 5)) expect(hit.score).toBeLessThan(ceiling);
    expect(lexical.ceiling("zebra")).toBe(0);
  });
});

describe("LexicalIndex: saved indexes of another analyzer or scheme", () => {
  test("are refused, so the caller rebuilds them", () => {
    const index = new LexicalIndex({ scheme: "fields v1" });
    index.add("00000001", "refund approved");
    const bytes = index.toBytes();
    expect(LexicalIndex.fromBytes(bytes, { scheme: "fields v1" }).search("refund", 1)).toHaveLength(1);
    expect(() => LexicalIndex.fromBytes(bytes, { scheme: "fields v2" })).toThrow(/other fields/);
    expect(() =>
      LexicalIndex.fromBytes(bytes, { scheme: "fields v1", analyzer: new Analyzer({ stem: false }) }),
    ).toThrow(/another analyzer/);
  });

  test("a file of the first format (no analyzer, plain counts) is refused", () => {
    // Format 1's header: magic "TMLX", version 1, no documents, no terms, total length 0.
    const v1 = Buffer.alloc(24);
    v1.writeUInt32LE(0x584c4d54, 0);
    v1.writeUInt32LE(1, 4);
    expect(() => LexicalIndex.fromBytes(v1)).toThrow(/format/);
  });
});
