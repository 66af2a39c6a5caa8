/**
 * Writes the project's evaluation set as a LoCoMo-format JSON file, to read or to use elsewhere
 * (`bun run eval` generates it in memory, so nothing needs to be written first):
 *   bun run bench/eval/dataset/generate.ts [--out PATH]   # default bench/results/tmp-memory-eval-v1.json
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { RESULTS_DIR } from "../paths.ts";
import { EVAL_SET_NAME, evalSetJson } from "./generate-set.ts";

const { values } = parseArgs({
  options: { out: { type: "string", default: join(RESULTS_DIR, `tmp-${EVAL_SET_NAME}.json`) } },
});
const { json, sha256, samples } = evalSetJson();
writeFileSync(values.out!, json);
const questions = samples.reduce((sum, s) => sum + s.qa.length, 0);
console.log(`wrote ${values.out}: ${samples.length} conversations, ${questions} questions, sha256 ${sha256}`);
