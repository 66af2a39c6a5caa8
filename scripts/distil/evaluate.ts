/**
 * Quality figures of an embedder against the teacher and against the project's own pairs
 * (eval-pairs.ts): how close its vectors are to the teacher's on held-out sentences, how well it
 * orders held-out pairs as the teacher does, graded pairs (Spearman), and question → note R@1.
 */
import { Rng } from "../../bench/eval/dataset/prng.ts";
import { USE_LITE_DIMS } from "../../src/embedding/use-lite.ts";
import { QUESTION_NOTES, STS_PAIRS } from "./eval-pairs.ts";

export type EmbedOne = (text: string) => Float32Array;

export interface Quality {
  /** Mean cosine of the embedder's vector with the teacher's, held-out sentences (teacher: 1). */
  teacherCosine?: number;
  /** Spearman of pair similarities against the teacher's, 5,000 held-out pairs. */
  teacherPairSpearman?: number;
  stsSpearman: number;
  questionR1: number;
}

/** The texts whose teacher vectors `evaluate` needs, in the order it expects them. */
export function pairTexts(): string[] {
  return [...STS_PAIRS.flatMap(([a, b]) => [a, b]), ...QUESTION_NOTES.flat()];
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

function ranks(values: number[]): number[] {
  const order = values.map((v, i) => [v, i] as const).sort((x, y) => x[0] - y[0]);
  const out = new Array<number>(values.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j++;
    for (let k = i; k <= j; k++) out[order[k]![1]] = (i + j) / 2;
    i = j + 1;
  }
  return out;
}

export function spearman(x: number[], y: number[]): number {
  const rx = ranks(x);
  const ry = ranks(y);
  const mean = (rx.length - 1) / 2;
  let num = 0;
  let dx = 0;
  let dy = 0;
  for (let i = 0; i < rx.length; i++) {
    num += (rx[i]! - mean) * (ry[i]! - mean);
    dx += (rx[i]! - mean) ** 2;
    dy += (ry[i]! - mean) ** 2;
  }
  return num / Math.sqrt(dx * dy);
}

function pairQuality(vec: (i: number) => Float32Array): Pick<Quality, "stsSpearman" | "questionR1"> {
  const sims = STS_PAIRS.map((_, i) => dot(vec(2 * i), vec(2 * i + 1)));
  const base = STS_PAIRS.length * 2;
  let hits = 0;
  QUESTION_NOTES.forEach((_, q) => {
    const query = vec(base + 2 * q);
    let best = -1;
    let bestScore = Number.NEGATIVE_INFINITY;
    QUESTION_NOTES.forEach((__, n) => {
      const score = dot(query, vec(base + 2 * n + 1));
      if (score > bestScore) [best, bestScore] = [n, score];
    });
    if (best === q) hits++;
  });
  return {
    stsSpearman: spearman(
      sims,
      STS_PAIRS.map(([, , grade]) => grade),
    ),
    questionR1: hits / QUESTION_NOTES.length,
  };
}

/** The teacher's own figures on the pairs, from its vectors of `pairTexts()`. */
export function teacherQuality(pairVectors: Float32Array): Quality {
  return pairQuality((i) => pairVectors.subarray(i * USE_LITE_DIMS, (i + 1) * USE_LITE_DIMS));
}

export function evaluate(embed: EmbedOne, heldOut: string[], heldOutTeacher?: Float32Array): Quality {
  const texts = pairTexts();
  const vectors = texts.map(embed);
  const quality: Quality = pairQuality((i) => vectors[i]!);
  if (!heldOutTeacher) return quality;
  const own = heldOut.map(embed);
  const teacher = (i: number) => heldOutTeacher.subarray(i * USE_LITE_DIMS, (i + 1) * USE_LITE_DIMS);
  quality.teacherCosine = own.reduce((sum, v, i) => sum + dot(v, teacher(i)), 0) / own.length;
  const rng = new Rng(7);
  const mine: number[] = [];
  const theirs: number[] = [];
  for (let k = 0; k < 5_000; k++) {
    const i = rng.int(0, own.length - 1);
    const j = rng.int(0, own.length - 1);
    mine.push(dot(own[i]!, own[j]!));
    theirs.push(dot(teacher(i), teacher(j)));
  }
  quality.teacherPairSpearman = spearman(mine, theirs);
  return quality;
}
