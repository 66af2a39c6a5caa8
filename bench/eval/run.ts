/**
 * `bun run eval`: retrieval quality of the service through its HTTP API, for each embedder and
 * for a plain BM25 baseline in the same run (docs/eval.md).
 *
 *   bun run eval                          # the project's set, embedders hash, static, tiered (both moments), local
 *   bun run eval --small                  # 2 conversations, 150 questions (also EVAL_SMALL=1)
 *   bun run eval --embedders hash,http    # http needs MEMORY_RUNTIME_EMBEDDINGS_URL
 *   bun run eval --locomo locomo10.json   # a LoCoMo file you downloaded
 *   bun run eval --out PATH               # default bench/results/eval.json (tmp-eval-small.json, eval-locomo.json)
 *   bun run eval --details PATH           # also every question's ranked turn ids, per system
 *   bun run eval --sets business          # only the business memory set (also EVAL_SETS=business)
 *   EVAL_EMBEDDERS=hash bun run eval      # the embedders from the environment
 *
 * Two sets: `conversations` (the project's set or a LoCoMo file, written to --out) and `business`
 * (business memory played through the webhook routes, bench/eval/business/, written to
 * bench/results/eval-business.json, or --business-out).
 *
 * An embedder the runtime refuses to start with is reported as skipped, with the reason.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseCli } from "../../scripts/cli.ts";
import { ablationTable } from "./ablation-report.ts";
import { evaluateBusiness } from "./business/evaluate-business.ts";
import { formatBusinessReport } from "./business/report.ts";
import { evaluateTranscripts, formatTranscriptsReport } from "./conversations/evaluate-transcripts.ts";
import { EVAL_SET_NAME, evalSetJson } from "./dataset/generate-set.ts";
import { expandSystems } from "./eval-systems.ts";
import { evaluate } from "./evaluate.ts";
import { featuresNamed, UnknownFeature, variantsOf } from "./features.ts";
import { EvalSetInvalid, readLocomoFile, readLocomoText, subset } from "./locomo.ts";
import { RESULTS_DIR } from "./paths.ts";
import { formatReport } from "./report.ts";

/** Every embedder that runs offline on text alone; `local` last, the slow one. */
const DEFAULT_EMBEDDERS = "hash,static,tiered,local";

const SMALL = { conversations: 2, questionsPerConversation: 75 };

const USAGE = `Usage: bun run eval [options]

Retrieval quality of the service through its HTTP API (the runtime in this process, nothing
listens), per embedder, beside a plain BM25 baseline (docs/eval.md).

Options:
  --small              2 conversations, 150 questions (also EVAL_SMALL=1)
  --embedders a,b      embedders to measure (default: EVAL_EMBEDDERS, else hash,static,tiered,local;
                       tiered is measured twice, tiered:ingest (the table's vectors only) and
                       tiered:upgraded (the model's, queries by the table); either alone by that
                       name; http needs MEMORY_RUNTIME_EMBEDDINGS_URL)
  --sets a,b           conversations, business, transcripts (default: EVAL_SETS, else all three)
  --locomo FILE        a LoCoMo file instead of the project's set
  --out PATH           default bench/results/eval.json (tmp-eval-small.json, eval-locomo.json)
  --business-out PATH  default bench/results/eval-business.json (tmp-eval-business.json)
  --details PATH       also every question's ranked turn ids, per system
  --ablation           also each embedder with one relevance feature flipped at a time (a default
                       one off, an opt-in one on): the features of bench/eval/features.ts
  --features a,b       the features the ablation flips (default: all of them)
  -h, --help           show this help
`;

function options() {
  const { values } = parseCli({
    usage: USAGE,
    options: {
      embedders: { type: "string", default: process.env.EVAL_EMBEDDERS ?? DEFAULT_EMBEDDERS },
      sets: { type: "string", default: process.env.EVAL_SETS ?? "conversations,business,transcripts" },
      "business-out": { type: "string" },
      locomo: { type: "string" },
      small: { type: "boolean", default: process.env.EVAL_SMALL === "1" },
      out: { type: "string" },
      details: { type: "string" },
      ablation: { type: "boolean", default: false },
      features: { type: "string" },
    },
  });
  const embedders = expandSystems(
    values
      .embedders!.split(",")
      .map((e) => e.trim())
      .filter(Boolean),
  );
  // A small run is a smoke (tmp-*.json is not committed); a LoCoMo run gets its own file.
  const name = values.locomo ? "eval-locomo.json" : values.small ? "tmp-eval-small.json" : "eval.json";
  const out = values.out ?? join(RESULTS_DIR, name);
  const sets = new Set(values.sets!.split(",").map((e) => e.trim()));
  const businessOut =
    values["business-out"] ??
    join(RESULTS_DIR, values.small ? "tmp-eval-business.json" : "eval-business.json");
  const features = values.ablation ? featuresNamed(values.features?.split(",").map((f) => f.trim())) : [];
  return {
    embedders: variantsOf(embedders, features),
    locomo: values.locomo,
    small: values.small!,
    out,
    details: values.details,
    sets,
    businessOut,
  };
}

const started = performance.now();
const log = (line: string) =>
  console.log(`[${String(Math.round((performance.now() - started) / 1000)).padStart(4)} s] ${line}`);

function write(path: string, report: unknown) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`written to ${path}`);
}

async function conversations(opts: ReturnType<typeof options>) {
  // The project's set is generated in memory and read through the LoCoMo reader, as a file would be.
  let set = opts.locomo
    ? readLocomoFile(opts.locomo, `LoCoMo file ${opts.locomo}`)
    : readLocomoText(evalSetJson().json, EVAL_SET_NAME);
  if (opts.small) set = subset(set, SMALL.conversations, SMALL.questionsPerConversation);
  const { report, answers } = await evaluate(set, opts.embedders, log);
  console.log(`\n${formatReport(report)}`);
  const ablation = ablationTable(report);
  if (ablation) console.log(`${ablation}\n`);
  write(opts.out, report);
  if (opts.details) {
    writeFileSync(opts.details, `${JSON.stringify(answers)}\n`);
    console.log(`every question's ranked turns written to ${opts.details}`);
  }
}

try {
  const opts = options();
  if (opts.sets.has("conversations")) await conversations(opts);
  if (opts.sets.has("business") && !opts.locomo) {
    const report = await evaluateBusiness(opts.embedders, log);
    console.log(`\n${formatBusinessReport(report)}`);
    write(opts.businessOut, report);
  }
  if (opts.sets.has("transcripts") && !opts.locomo) {
    // The extractor's labelled set, and the same sessions through POST /memory/conversations (docs/conversations.md).
    const report = await evaluateTranscripts(opts.embedders, opts.small, log);
    console.log(`\n${formatTranscriptsReport(report)}`);
    write(join(RESULTS_DIR, opts.small ? "tmp-eval-transcripts.json" : "eval-transcripts.json"), report);
  }
} catch (error) {
  if (!(error instanceof EvalSetInvalid) && !(error instanceof UnknownFeature)) throw error;
  console.error(`eval: ${error.message}`);
  process.exit(1);
}
