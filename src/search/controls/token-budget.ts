/**
 * Token estimates for `max_tokens` (prompt packing). Not a tokenizer: GPT-style tokenizers spend
 * about one token per four characters of English, and about one per character of scripts such as
 * Chinese or Japanese, so ASCII counts a quarter and every other character one. It overestimates
 * accented Latin text a little, which errs on the side of a budget that fits.
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) ascii++;
    // A surrogate pair is one character: count its high half only.
    else if (c < 0xdc00 || c > 0xdfff) other++;
  }
  return Math.ceil(ascii / 4) + other;
}

/**
 * How many of `costs` (in rank order) fit in `budget`: the longest prefix whose sum stays within it,
 * and never fewer than one when there is any, since an empty page would read as "nothing found" and
 * an agent can trim one long entry itself. A prefix, not a knapsack: skipping a long result to fit
 * shorter, lower ranked ones would reorder the ranking.
 */
export function fitsBudget(costs: readonly number[], budget: number): number {
  let used = 0;
  for (let i = 0; i < costs.length; i++) {
    used += costs[i]!;
    if (used > budget) return Math.max(1, i);
  }
  return costs.length;
}
