/**
 * Splits a word into the static table's entries (static-embedder.ts): the whole word when the
 * table has it, else the most probable sequence of SentencePiece pieces (the unigram model's
 * Viterbi search, as USE-lite's own tokenizer does), so an inflection or a rare word still lands on
 * rows that carry its meaning ("contracts" → "▁contract" + "s").
 */

/** SentencePiece's word-start mark: a piece beginning with it starts a word. */
export const WORD_START = "\u2581";

/** The score of a character no piece covers: worse than any piece, so it is used only when needed. */
const UNKNOWN_SCORE = -100;

export class PieceTokenizer {
  private readonly ids = new Map<string, number>();
  private readonly maxLength: number;

  /** `entries[i]` is row i's text and `scores[i]` its log-probability in the unigram model. */
  constructor(
    entries: readonly string[],
    private readonly scores: Float32Array,
  ) {
    let longest = 1;
    entries.forEach((entry, i) => {
      this.ids.set(entry, i);
      longest = Math.max(longest, entry.length);
    });
    this.maxLength = longest;
  }

  /** The row ids of one lower-case word (see tokenize.ts), in order; a character no piece has is skipped. */
  segment(word: string): number[] {
    const text = WORD_START + word;
    const whole = this.ids.get(text);
    if (whole !== undefined) return [whole];
    return this.viterbi(text);
  }

  private viterbi(text: string): number[] {
    const n = text.length;
    const best = new Float64Array(n + 1).fill(Number.NEGATIVE_INFINITY);
    const from = new Int32Array(n + 1);
    const piece = new Int32Array(n + 1).fill(-1);
    best[0] = 0;
    for (let end = 1; end <= n; end++) {
      // Skipping one unknown character keeps every position reachable.
      best[end] = best[end - 1]! + UNKNOWN_SCORE;
      from[end] = end - 1;
      for (let start = Math.max(0, end - this.maxLength); start < end; start++) {
        const id = this.ids.get(text.slice(start, end));
        if (id === undefined) continue;
        const score = best[start]! + this.scores[id]!;
        if (score > best[end]!) {
          best[end] = score;
          from[end] = start;
          piece[end] = id;
        }
      }
    }
    const out: number[] = [];
    for (let end = n; end > 0; end = from[end]!) if (piece[end]! >= 0) out.push(piece[end]!);
    return out.reverse();
  }
}
