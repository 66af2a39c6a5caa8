/**
 * `bun run bench/eval/ablation.ts`: what each part of the ranking gains, on the evaluation set,
 * in process (no HTTP: the same indexes and `searchHybrid` the tenant actor runs, so the figures
 * match `bun run eval`'s up to ties). Each row changes one thing from the row before it:
 * the BM25 analyzer's steps, BM25's parameters, the tags field, then the fusion per embedder.
 * Writes bench/results/ablation.json (docs/embedding-and-search.md quotes it).
 *
 *   bun run bench/eval/ablation.ts                 # hash and local (local embeds ~6,600 texts, ~80 s)
 *   bun run bench/eval/ablation.ts --embedders hash
 *   bun run bench/eval/ablation.ts --embedders tiered   # the upgraded vectors' blend and weight
 *   bun run bench/eval/ablation.ts --small
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { FUSION_PROFILES } from "../../src/search/fusion/fusion-profile.ts";
import { round } from "../stats.ts";
import { type AblationRow, type LexicalSetup, SHIPPED_LEXICAL, scoreRow } from "./ablation-runner.ts";
import { EVAL_SET_NAME, evalSetJson } from "./dataset/generate-set.ts";
import { readLocomoText, subset } from "./locomo.ts";
import { RESULTS_DIR } from "./paths.ts";

const { values } = parseArgs({
  options: {
    embedders: { type: "string", default: "hash,local" },
    small: { type: "boolean", default: false },
  },
});
const embedders = values.embedders!.split(",").filter(Boolean) as Array<"hash" | "local" | "tiered">;

const BEFORE: LexicalSetup = {
  analyzer: { stem: false, irregularVerbs: false, stopWords: false },
  k1: 1.2,
  b: 0.75,
  tagWeight: 0,
};
const LEXICAL_STEPS: Array<[string, LexicalSetup]> = [
  ["BM25 before: words, no stemming, stop words kept, k1 1.2, b 0.75", BEFORE],
  ["+ stop words dropped from queries", { ...BEFORE, analyzer: { ...BEFORE.analyzer, stopWords: true } }],
  ["+ Porter2 stemming", { ...BEFORE, analyzer: { stem: true, irregularVerbs: false, stopWords: true } }],
  ["+ irregular past forms (paid → pay)", { ...BEFORE, analyzer: {} }],
  ["+ b 0.3 (less length normalisation)", { ...BEFORE, analyzer: {}, b: 0.3 }],
  ["+ tags as a field (shipped BM25)", SHIPPED_LEXICAL],
];

/** The fusion as it was: 0.6 raw cosine + 0.4 BM25 / best BM25. */
const OLD_FUSION = { vectorWeight: 0.6, cosineCentre: 0, minCosine: Number.NEGATIVE_INFINITY };

function fusionRows(embedder: "hash" | "local" | "tiered"): AblationRow[] {
  if (embedder === "tiered") return tieredRows();
  const shipped = FUSION_PROFILES[embedder];
  const rows: AblationRow[] = [
    { name: `${embedder}: before (old BM25, 0.6 raw cosine)`, embedder, lexical: BEFORE, fusion: OLD_FUSION },
    { name: `${embedder}: vector alone`, embedder, lexical: SHIPPED_LEXICAL, fusion: "vector" },
    {
      name: `${embedder}: new BM25, old fusion (0.6 raw cosine)`,
      embedder,
      lexical: SHIPPED_LEXICAL,
      fusion: OLD_FUSION,
    },
    {
      name: `${embedder}: new BM25, equal-weight RRF (k 60)`,
      embedder,
      lexical: SHIPPED_LEXICAL,
      fusion: "rrf",
    },
  ];
  for (const weight of embedder === "hash" ? [0.3, 0.2] : [0.5, 0.6, 0.8])
    rows.push({
      name: `${embedder}: new BM25, weight ${weight}, centre ${shipped.cosineCentre}`,
      embedder,
      lexical: SHIPPED_LEXICAL,
      fusion: { ...shipped, vectorWeight: weight },
    });
  if (shipped.cosineCentre > 0)
    rows.push({
      name: `${embedder}: new BM25, weight ${shipped.vectorWeight}, centre 0 (raw cosine)`,
      embedder,
      lexical: SHIPPED_LEXICAL,
      fusion: { ...shipped, cosineCentre: 0 },
    });
  rows.push({
    name: `${embedder}: shipped (weight ${shipped.vectorWeight}, centre ${shipped.cosineCentre}, min cosine ${shipped.minCosine})`,
    embedder,
    lexical: SHIPPED_LEXICAL,
    fusion: shipped,
  });
  return rows;
}

/**
 * The default embedder once its entries are upgraded: the table's queries against the model's
 * vectors alone (as upgrades were before TABLE_SHARE) and against the shipped blend.
 */
function tieredRows(): AblationRow[] {
  const shipped = FUSION_PROFILES.tiered;
  const rows: AblationRow[] = [];
  for (const weight of [0.6, 0.75])
    rows.push({
      name: `tiered: table queries, the model's vectors alone, weight ${weight}`,
      embedder: "local",
      queryEmbedder: "static",
      lexical: SHIPPED_LEXICAL,
      fusion: { ...shipped, vectorWeight: weight },
    });
  for (const weight of [0.6, 0.7, 0.75, 0.8])
    rows.push({
      name: `tiered: table queries, upgraded vectors (model + table share), weight ${weight}`,
      embedder: "tiered",
      lexical: SHIPPED_LEXICAL,
      fusion: { ...shipped, vectorWeight: weight },
    });
  return rows;
}

let set = readLocomoText(evalSetJson().json, EVAL_SET_NAME);
if (values.small) set = subset(set, 2, 75);
const rows: AblationRow[] = [
  ...LEXICAL_STEPS.map(([name, lexical]) => ({
    name,
    embedder: "none" as const,
    lexical,
    fusion: "lexical" as const,
  })),
  ...embedders.flatMap(fusionRows),
];
const started = performance.now();
const results = [];
for (const row of rows) {
  const summary = await scoreRow(set, row);
  const o = summary.overall;
  console.log(
    `${row.name.padEnd(72)} R@5 ${o.recall_at_5.toFixed(3)}  R@10 ${o.recall_at_10.toFixed(3)}  NDCG@10 ${o.ndcg_at_10.toFixed(3)}  session R@5 ${o.session_recall_at_5.toFixed(3)}`,
  );
  results.push({ name: row.name, summary });
}
const out = join(RESULTS_DIR, values.small ? "tmp-ablation-small.json" : "ablation.json");
writeFileSync(
  out,
  `${JSON.stringify({ dataset: set.name, date: new Date().toISOString(), total_s: round((performance.now() - started) / 1000), rows: results }, null, 2)}\n`,
);
console.log(`written to ${out}`);
