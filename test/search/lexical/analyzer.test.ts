import { describe, expect, test } from "bun:test";
import { HashEmbedder } from "../../../src/embedding/hash-embedder.ts";
import { tokenize } from "../../../src/embedding/tokenize.ts";
import { Analyzer, DEFAULT_ANALYZER } from "../../../src/search/lexical/analyzer.ts";

const terms = (text: string) => DEFAULT_ANALYZER.documentTerms(text);
const query = (text: string) => DEFAULT_ANALYZER.queryTerms(text);

describe("analyzer: stemming", () => {
  test("inflections of one word are one term (Porter2)", () => {
    expect(terms("running runs run")).toEqual(["run", "run", "run"]);
    expect(terms("shoes shoe")).toEqual(["shoe", "shoe"]);
    expect(terms("travelled travelling travels")).toEqual(["travel", "travel", "travel"]);
    expect(terms("promoted promotion")).toEqual(["promot", "promot"]);
  });

  test("past forms of irregular verbs meet their base", () => {
    expect(terms("paid ran bought went")).toEqual(terms("pay run buy go"));
    // Forms that are also other words are left alone.
    expect(terms("left found")).toEqual(["left", "found"]);
  });

  test("names are stemmed like any word, so a name matches itself in any form", () => {
    expect(terms("Soren's guitar")).toEqual(["soren", "guitar"]);
    expect(terms("Waffles")).toEqual(terms("waffles"));
    expect(query("What did Waffles swallow?")).toEqual(terms("Waffles swallowed"));
  });

  test("words in other scripts, or with digits, are not stemmed", () => {
    expect(terms("東京 हिन्दी q3 mp3s")).toEqual(["東京", "हिन्दी", "q3", "mp3s"]);
  });

  test("can be turned off (for the measurements)", () => {
    const plain = new Analyzer({ stem: false, irregularVerbs: false });
    expect(plain.documentTerms("running paid")).toEqual(["running", "paid"]);
  });
});

describe("analyzer: stop words", () => {
  test("are dropped from queries, kept in documents", () => {
    expect(query("How much did Soren pay for his guitar?")).toEqual(["much", "soren", "pay", "guitar"]);
    expect(terms("I paid for it")).toEqual(["i", "pay", "for", "it"]);
  });

  test("a query made only of stop words keeps them, so it can still match", () => {
    expect(query("The Who")).toEqual(["the", "who"]);
  });

  test("negations and time words are not stop words", () => {
    expect(query("not before the move")).toEqual(["not", "befor", "move"]);
  });

  test("contractions are stop words; other apostrophes vanish inside the word", () => {
    expect(query("I'm sure it's O'Brien’s")).toEqual(["sure", "obrien"]);
  });

  test("repeated query words count once", () => {
    expect(query("refund refunds refunded")).toEqual(["refund"]);
  });
});

describe("analyzer: numbers, dates and characters", () => {
  test("numbers are terms, thousands separators dropped, decimals kept whole", () => {
    expect(terms("$2,300 a month, 1.5 hours, 12 percent")).toEqual([
      "2300",
      "a",
      "month",
      "1.5",
      "hour",
      "12",
      "percent",
    ]);
  });

  test("ordinals are their number, dotted dates split into parts", () => {
    expect(terms("March 3rd")).toEqual(terms("march 3"));
    expect(terms("21st 2nd 4th")).toEqual(["21", "2", "4"]);
    expect(terms("on 12.03.2022")).toEqual(["on", "12", "03", "2022"]);
  });

  test("accents of Latin letters are folded; compatibility forms normalised", () => {
    expect(terms("Café naïve")).toEqual(terms("cafe naive"));
    expect(terms("ＦＯＯ ﬁle")).toEqual(["foo", "file"]);
    expect(terms("cafe\u0301")).toEqual(terms("café"));
  });

  test("text without words has no terms; giant words are cut", () => {
    expect(terms("  ...!? 🙂 ")).toEqual([]);
    expect(query("?!")).toEqual([]);
    expect(terms("x".repeat(500))[0]).toHaveLength(64);
  });
});

describe("the hash embedder keeps its own tokenizer", () => {
  test("stored hash vectors do not depend on the BM25 analyzer", () => {
    // The tokenizer the hash embedder uses neither stems nor drops stop words.
    expect(tokenize("The runners paid")).toEqual(["the", "runners", "paid"]);
    const hash = new HashEmbedder();
    expect(hash.embedSync("runners")).not.toEqual(hash.embedSync("runner"));
  });
});
