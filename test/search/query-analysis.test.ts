import { describe, expect, test } from "bun:test";
import { queryWords } from "../../src/search/lexical/matched-terms.ts";
import { analyseQuery, lexicalText, queryText } from "../../src/search/query-analysis.ts";

const MAY_15 = Date.parse("2024-05-15T12:00:00.000Z");

describe("is there text?", () => {
  test("absent or white space is no text; anything else is the text as written", () => {
    expect(queryText(undefined)).toBeUndefined();
    expect(queryText("")).toBeUndefined();
    expect(queryText(" \n\t ")).toBeUndefined();
    expect(queryText(" ?! ")).toBe(" ?! ");
    expect(queryText(" Acme ")).toBe(" Acme ");
  });

  test("text without a word is no lexical text", () => {
    expect(lexicalText(undefined)).toBeUndefined();
    expect(lexicalText("  ?! ")).toBeUndefined();
    expect(lexicalText("the Acme renewal?")).toBe("the Acme renewal?");
  });
});

describe("the query analysed once", () => {
  test("holds the text, the lexical text and the time window it names", () => {
    const analysis = analyseQuery({ text: "What did Zane do in May 2022?", validAt: MAY_15 });
    expect(analysis.text).toBe("What did Zane do in May 2022?");
    expect(analysis.lexical).toBe("What did Zane do in May 2022?");
    expect(analysis.time.window?.expression).toBe("in May 2022");
    expect(analysis.time.window?.from).toBe(Date.parse("2022-05-01T00:00:00.000Z"));
  });

  test("time_expressions: false reads no window: the words are only words", () => {
    const analysis = analyseQuery({
      text: "What did Zane do in May 2022?",
      validAt: MAY_15,
      controls: { timeExpressions: false },
    });
    expect(analysis.time.window).toBeUndefined();
    expect(analysis.time.rest).toBe("What did Zane do in May 2022?");
  });

  test("no text: nothing to search by words, no window, no words", () => {
    const analysis = analyseQuery({ text: "   ", validAt: MAY_15 });
    expect(analysis.text).toBeUndefined();
    expect(analysis.lexical).toBeUndefined();
    expect(analysis.time.window).toBeUndefined();
    expect(analysis.words()).toEqual([]);
  });

  test("punctuation alone is text without lexical text", () => {
    const analysis = analyseQuery({ text: " ?! ", validAt: MAY_15 });
    expect(analysis.text).toBe(" ?! ");
    expect(analysis.lexical).toBeUndefined();
  });

  test("its words are the query's matchable words, worked out once and then reused", () => {
    const query = "When did Globex pay the invoices?";
    const analysis = analyseQuery({ text: query, validAt: MAY_15 });
    const words = analysis.words();
    expect(words).toEqual(queryWords(query));
    expect(words).toEqual(["globex", "pay", "invoices"]);
    expect(analysis.words()).toBe(words);
  });
});
