import { describe, expect, test } from "bun:test";
import { mmr } from "../../../src/search/controls/mmr.ts";
import { recencyFactor } from "../../../src/search/controls/recency.ts";
import { estimateTokens, fitsBudget } from "../../../src/search/controls/token-budget.ts";
import { LexicalIndex } from "../../../src/search/lexical/lexical-index.ts";
import { matchedTerms, matchedTermsOf } from "../../../src/search/lexical/matched-terms.ts";
import { rareWordsQuery } from "../../../src/search/lexical/rare-words.ts";
import { termSet, termSetCosine } from "../../../src/search/lexical/term-set.ts";

const DAY = 24 * 3600 * 1000;

describe("mmr", () => {
  // Candidates 0–2 are copies of one another, 3 is different; relevance best first.
  const scores = [0.9, 0.88, 0.86, 0.6];
  const copies = new Set([0, 1, 2]);
  const similarity = (i: number, j: number) => (copies.has(i) && copies.has(j) ? 0.95 : 0.1);

  test("diversity 0 keeps the ranking by relevance, redundancy aside", () => {
    expect(mmr(scores, 0, 4, similarity).map((p) => p.index)).toEqual([0, 1, 2, 3]);
  });

  test("with diversity the different candidate comes second, and each pick's redundancy is its highest similarity to those above", () => {
    const picks = mmr(scores, 0.5, 3, similarity);
    expect(picks.map((p) => p.index)).toEqual([0, 3, 1]);
    expect(picks.map((p) => p.redundancy)).toEqual([0, 0.1, 0.95]);
  });

  test("diversity 1 takes the best first, then the least similar; ties go to relevance", () => {
    expect(mmr(scores, 1, 2, similarity).map((p) => p.index)).toEqual([0, 3]);
  });

  test("asks k × n similarities at most, and stops at the candidates there are", () => {
    let calls = 0;
    const picks = mmr(scores, 0.5, 10, (i, j) => {
      calls++;
      return similarity(i, j);
    });
    expect(picks).toHaveLength(4);
    expect(calls).toBe(3 + 2 + 1);
    expect(mmr([], 0.5, 3, similarity)).toEqual([]);
  });
});

describe("token budget", () => {
  test("ASCII counts a quarter token a character, rounded up; other characters one each", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("abcd")).toBe(1);
    expect(estimateTokens("abcde")).toBe(2);
    expect(estimateTokens("東京都")).toBe(3);
    // An emoji is one character (a surrogate pair), so one token.
    expect(estimateTokens("😀")).toBe(1);
  });

  test("keeps the longest prefix within the budget, and always the first", () => {
    expect(fitsBudget([10, 10, 10], 25)).toBe(2);
    expect(fitsBudget([10, 10, 10], 30)).toBe(3);
    expect(fitsBudget([10, 1, 1], 9)).toBe(1);
    expect(fitsBudget([5, 50, 1], 20)).toBe(1);
    expect(fitsBudget([], 5)).toBe(0);
  });
});

describe("recency factor", () => {
  test("halves every half-life with weight 1, never below 1 − weight, 1 for the future", () => {
    expect(recencyFactor(0, 7 * DAY)).toBe(1);
    expect(recencyFactor(7 * DAY, 7 * DAY)).toBe(0.5);
    expect(recencyFactor(14 * DAY, 7 * DAY)).toBe(0.25);
    expect(recencyFactor(7 * DAY, 7 * DAY, 0.5)).toBe(0.75);
    expect(recencyFactor(1e6 * DAY, 7 * DAY, 0.4)).toBeCloseTo(0.6, 10);
    expect(recencyFactor(-DAY, 7 * DAY)).toBe(1);
  });
});

describe("term sets", () => {
  test("compare analysed terms: inflections and stop words do not count, a changed word does", () => {
    const a = termSet("Acme renewed their contract on March 3");
    expect(termSetCosine(a, termSet("Acme renews the contract on March 3rd"))).toBe(1);
    expect(
      termSetCosine(
        termSet("Alice prefers tea in the morning"),
        termSet("Alice prefers coffee in the morning"),
      ),
    ).toBe(0.75);
    expect(termSetCosine(a, termSet("Pelicans migrate over the Atlantic"))).toBe(0);
    expect(termSetCosine(a, new Set())).toBe(0);
  });
});

describe("matched terms", () => {
  test("the query's words the index matched in the document, as written, stop words beside others left out", () => {
    const index = new LexicalIndex();
    index.add("00000001", "Globex paid the invoice late");
    index.add("00000002", "Pelican migration");
    expect(matchedTerms(index, "When did Globex pay the invoices?", "00000001")).toEqual([
      "globex",
      "pay",
      "invoices",
    ]);
    expect(matchedTerms(index, "When did Globex pay the invoices?", "00000002")).toEqual([]);
    expect(matchedTerms(index, "pelican pelican", "00000002")).toEqual(["pelican"]);
    expect(matchedTerms(index, "anything", "0000000f")).toEqual([]);
  });

  test("several documents at once: the same words as one by one, one scorer per query word", () => {
    const index = new LexicalIndex();
    index.add("00000001", "Globex paid the invoice late");
    index.add("00000002", "Pelican migration");
    index.add("00000003", "Globex pelican sighting");
    const ids = ["00000001", "00000002", "00000003", "0000000f"];
    const query = "Did Globex see a pelican or pay?";
    let scorers = 0;
    const counted = {
      scorer: (word: string) => {
        scorers++;
        return index.scorer(word);
      },
    };
    expect(matchedTermsOf(counted, query, ids)).toEqual(ids.map((id) => matchedTerms(index, query, id)));
    expect(matchedTermsOf(index, query, ids)[2]).toEqual(["globex", "pelican"]);
    // "did", "a", "or" are stop words beside others: globex, see, pelican, pay.
    expect(scorers).toBe(4);
  });
});

describe("rare words query", () => {
  // 2,000 documents: "common" in all, "usual" in 100 (5%), "scarce" in 10, each number in one.
  const index = new LexicalIndex();
  for (let i = 0; i < 2000; i++) {
    const words = ["common", i % 20 === 0 ? "usual" : "", i % 200 === 0 ? "scarce" : "", `n${i}`];
    index.add(i.toString(16).padStart(8, "0"), words.join(" "));
  }

  test("keeps the known words held by at most max(commonMin, commonShare × n), rarest first", () => {
    expect(rareWordsQuery(index, "Common usual scarce n7 unknown")).toBe("n7 scarce usual");
    expect(rareWordsQuery(index, "common usual scarce n7", { commonMin: 50 })).toBe("n7 scarce");
    expect(rareWordsQuery(index, "common usual scarce n7", { commonMin: 0, commonShare: 0.06 })).toBe(
      "n7 scarce usual",
    );
    expect(rareWordsQuery(index, "common usual scarce n7", { commonMax: 5 })).toBe("n7");
  });

  test("at most `words` words, from the text's first `chars` characters; none when all are common", () => {
    expect(rareWordsQuery(index, "n1 n2 n3 scarce", { words: 2 })).toBe("n1 n2");
    expect(rareWordsQuery(index, "scarce n9", { chars: 6 })).toBe("scarce");
    expect(rareWordsQuery(index, "common common", { commonMin: 10 })).toBe("");
  });
});
