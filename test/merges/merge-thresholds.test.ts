/**
 * The merge threshold's figures on the labelled set (bench/eval/merge-set.ts), as docs/memory.md
 * quotes them: at MERGE_THRESHOLD with the veto no hard negative is merged by any similarity, the
 * veto is what makes that so, and the duplicates missed are the paraphrases below the threshold.
 */
import { expect, test } from "bun:test";
import { mergeSet } from "../../bench/eval/merge-set.ts";
import { measure } from "../../bench/eval/merge-thresholds.ts";
import { mergeVeto } from "../../src/merge/merge-veto.ts";
import { MERGE_THRESHOLD } from "../../src/models/merge.ts";

const rows = measure([MERGE_THRESHOLD]);
const at = (similarity: string, veto: boolean) =>
  rows.find((r) => r.similarity === similarity && r.veto === veto)!;

test("the labelled set is seeded: the same pairs every run, hard negatives of every kind", () => {
  const pairs = mergeSet();
  expect(pairs).toEqual(mergeSet());
  expect(pairs.length).toBe(1040);
  expect(new Set(pairs.filter((p) => !p.duplicate).map((p) => p.kind))).toEqual(
    new Set(["invoice", "amount", "date", "person", "negation", "plan_vs_done"]),
  );
});

test("with the veto, no hard negative is merged at the threshold, for words, hash and static", () => {
  for (const similarity of ["words", "hash", "static"]) expect(at(similarity, true).falseMerge).toBe(0);
  expect(at("words", true).missedMerge).toBeCloseTo(0.2125, 3);
  expect(at("static", true).missedMerge).toBeCloseTo(0.00625, 4);
});

test("without the veto most hard negatives would merge: the veto is what keeps them apart", () => {
  for (const similarity of ["words", "hash", "static"])
    expect(at(similarity, false).falseMerge).toBeGreaterThan(0.7);
});

test("the veto never refuses a restatement that keeps its figures, names and polarity", () => {
  const vetoed = mergeSet().filter((p) => p.duplicate && mergeVeto(p.a, p.b) !== undefined);
  expect(vetoed).toEqual([]);
  expect(mergeVeto("Invoice INV-1041 paid", "Invoice INV-1042 paid")).toBe("figures");
  expect(mergeVeto("Alice will sign on Monday", "Alice will sign on Tuesday")).toBe("dates");
  expect(mergeVeto("Alice owns the account", "Bob owns the account")).toBe("names");
  expect(mergeVeto("The invoice was paid", "The invoice was not paid")).toBe("negation");
  expect(mergeVeto("Bob will migrate Initech", "Bob migrated Initech")).toBe("plan_vs_done");
});
