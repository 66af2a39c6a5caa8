/**
 * The context pack's token count: a real BPE tokenizer (gpt-tokenizer's o200k_base, the encoding of
 * the GPT-4o family), not the estimate `max_tokens` uses (src/search/controls/token-budget.ts). Other
 * models' tokenizers differ by a few percent; a caller packing for one should leave that margin.
 */
import { countTokens as count } from "gpt-tokenizer/encoding/o200k_base";

export function countTokens(text: string): number {
  return count(text);
}
