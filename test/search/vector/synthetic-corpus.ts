/**
 * A deterministic synthetic corpus for recall tests and the search benchmark: sentences drawn
 * from a vocabulary of a few hundred pseudo-words in topic clusters (plus common words and
 * occasional rare names), so that embeddings cluster like real notes do instead of being
 * uniformly random.
 */
const SYLLABLES = [
  "ka",
  "lo",
  "mi",
  "ne",
  "su",
  "ta",
  "ri",
  "po",
  "de",
  "va",
  "zu",
  "ko",
  "ma",
  "li",
  "no",
  "ser",
  "tan",
  "vel",
  "dor",
  "mak",
  "pil",
  "run",
  "sol",
  "ten",
  "bri",
  "cas",
  "fen",
  "gor",
  "hul",
  "jin",
];
const TOPICS = 24;
const WORDS_PER_TOPIC = 14;
const COMMON_WORDS = 60;
const NAMES = 3000;

export interface SyntheticCorpus {
  documents: string[];
  queries: string[];
}

/** Mulberry32: tiny, seedable, good enough to shuffle words. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function makeWords(count: number, syllables: number, random: () => number, taken: Set<string>): string[] {
  if (count > SYLLABLES.length ** syllables / 2) throw new Error("not enough syllables for so many words");
  const words: string[] = [];
  while (words.length < count) {
    let word = "";
    for (let i = 0; i < syllables; i++) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    if (!taken.has(word)) {
      taken.add(word);
      words.push(word);
    }
  }
  return words;
}

class Vocabulary {
  readonly topics: string[][];
  readonly common: string[];
  readonly names: string[];

  constructor(private readonly random: () => number) {
    const taken = new Set<string>();
    this.common = makeWords(COMMON_WORDS, 2, random, taken);
    this.topics = Array.from({ length: TOPICS }, () => makeWords(WORDS_PER_TOPIC, 3, random, taken));
    this.names = makeWords(NAMES, 4, random, taken);
  }

  pick<T>(items: T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }

  /** Topic words are Zipf-like: the first few of a topic are much more frequent. */
  topicWord(topic: string[]): string {
    return topic[Math.floor(topic.length * this.random() ** 2)]!;
  }

  sentence(minWords: number, maxWords: number, commonShare: number): string {
    const topic = this.pick(this.topics);
    const length = minWords + Math.floor(this.random() * (maxWords - minWords + 1));
    const words: string[] = [];
    for (let i = 0; i < length; i++) {
      const r = this.random();
      if (r < commonShare) words.push(this.pick(this.common));
      else if (r < commonShare + 0.1) words.push(this.topicWord(this.pick(this.topics)));
      else if (r < commonShare + 0.13) words.push(this.pick(this.names));
      else words.push(this.topicWord(topic));
    }
    return words.join(" ");
  }
}

export function syntheticCorpus(documents: number, queries: number, seed = 42): SyntheticCorpus {
  const vocabulary = new Vocabulary(seededRandom(seed));
  return {
    documents: Array.from({ length: documents }, () => vocabulary.sentence(8, 18, 0.3)),
    queries: Array.from({ length: queries }, () => vocabulary.sentence(3, 6, 0.15)),
  };
}

/** An entry-like id for document `i`: 8 hex characters, distinct for distinct `i`. */
export function syntheticId(i: number): string {
  return (Math.imul(i + 1, 0x9e3779b1) >>> 0).toString(16).padStart(8, "0");
}
