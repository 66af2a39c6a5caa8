/**
 * The graph walk over the static table's vectors, which all point nearly the same way (their mean
 * has norm ~0.7): the index centres its graph on their mean (vector-centre.ts), so the walk finds
 * what an exact scan finds, with the exact scan's scores.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Rng } from "../../../bench/eval/dataset/prng.ts";
import { memorySentences } from "../../../scripts/distil/memory-sentences.ts";
import { StaticEmbedder } from "../../../src/embedding/static-embedder.ts";
import { searchExact, VectorIndex } from "../../../src/search/vector/vector-index.ts";
import { syntheticId } from "./synthetic-corpus.ts";

const N = 10_000;
const K = 10;
const TIE = 1e-4;
const embedder = new StaticEmbedder();

/** A graph index (one insertion thread: the same graph on every run) over `texts`, and their vectors. */
function build(texts: string[]): { ann: VectorIndex; vectors: Array<[string, Float32Array]> } {
  const ann = VectorIndex.open({ dims: embedder.dims, connectivity: 24, expansionSearch: 96, threads: 1 });
  const vectors = texts.map((text, i): [string, Float32Array] => [syntheticId(i), embedder.embedSync(text)]);
  for (const [id, vec] of vectors) ann.add(id, vec);
  ann.flush();
  expect(ann.pending).toBe(0);
  return { ann, vectors };
}

/** Invoice-like word salad (seeded): near-parallel table vectors; `notes` replace every 100th row. */
const PET = "Olga adopted a kitten from the shelter in May";
const WORDS = (
  "plan support license shipping consulting training hosting storage maintenance printing catering " +
  "cleaning audit design repair renewal invoice instalment fee order deposit upgrade contract refill " +
  "booking retainer subscription server laptop chairs desks paper toner coffee travel hotel flight taxi " +
  "lunch dinner conference workshop seminar marketing advertising legal accounting payroll insurance " +
  "rent electricity water internet phone software hardware cables monitors keyboards"
).split(" ");
function wordSalad(rng: Rng, count: number, notes: (i: number) => string | undefined): string[] {
  return Array.from(
    { length: count },
    (_, i) => notes(i) ?? Array.from({ length: rng.int(3, 6) }, () => rng.pick(WORDS)).join(" "),
  );
}

// One graph for both tests: word salad, a memory note every 100th row, the repro's note at row 100.
const notes = memorySentences(new Rng(5), N / 100);
const rng = new Rng(7);
let built: ReturnType<typeof build>;
beforeAll(() => {
  built = build(wordSalad(rng, N, (i) => (i === 100 ? PET : i % 100 === 0 ? notes[i / 100] : undefined)));
}, 30_000);
afterAll(() => built.ann.close());

describe("VectorIndex over static-table vectors", () => {
  test("the walk returns the clearly nearest note among 10k near-parallel vectors, scored exactly", () => {
    const { ann, vectors } = built;
    // Each question's nearest entry by far is the note (cosine ~0.65 against < 0.55 for the rest);
    // walking an uncentred graph, it is not always reached.
    for (const text of ["Olga's new cat", "the shelter in May", "what did Olga adopt?"]) {
      const query = embedder.embedSync(text);
      const truth = searchExact(query, vectors, K);
      expect(truth[0]!.id).toBe(syntheticId(100));
      expect(truth[0]!.score - truth[1]!.score).toBeGreaterThan(0.1);
      const found = ann.search(query, K);
      expect(found[0]!.id).toBe(syntheticId(100));
      expect(found[0]!.score).toBeCloseTo(truth[0]!.score, 3);
    }
  });

  test("walk recall@10 against an exact scan is ≥ 0.95 over word salad with memory notes", () => {
    const { ann, vectors } = built;
    const salad = wordSalad(rng, 50, () => undefined).map((text) => text.split(" ").slice(0, 3).join(" "));
    const queries = [...memorySentences(new Rng(77), 50), ...salad];
    let agreeing = 0;
    for (const text of queries) {
      const query = embedder.embedSync(text);
      const tenth = searchExact(query, vectors, K)[K - 1]!.score;
      // Tie-aware (float16 rows against float32 truth): a hit as good as the exact 10th counts.
      agreeing += ann.search(query, K).filter((hit) => hit.score >= tenth - TIE).length;
    }
    const recall = agreeing / (queries.length * K);
    console.log(`static-table walk recall@10 over ${N} vectors: ${recall}`);
    expect(recall).toBeGreaterThanOrEqual(0.95);
  }, 20_000);
});
