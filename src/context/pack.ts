/**
 * Packing search results into a token budget (docs/context-pack.md). Greedy in rank order: each
 * result whose block still fits is taken, one that does not is skipped for a smaller next one, so the
 * budget is spent rather than only trimmed to. The blocks are grouped by category (categories in the
 * order of their best entry), numbered by rank. The count is the tokenizer's, of the final text.
 */

import { PACK_HEADER, type PackFrame, packedEvidence } from "../mcp/evidence.ts";
import type { Entry } from "../models/entry.ts";
import type { ContextResponse } from "./model.ts";
import { countTokens } from "./tokens.ts";

export interface Ranked {
  entry: Entry;
  score: number;
}

type Pack = Omit<ContextResponse, "encoding" | "budget_tokens" | "considered">;

interface Chosen extends Ranked {
  block: string;
  tokens: number;
  cut?: number;
}

export const NOTHING_FOUND = "Recalled memory: no entries matched the query.";

/**
 * Up to this budget the tight frame is tried too, and taken when it holds more entries: there the
 * regular header alone is a quarter of the budget. Past it, the regular frame's times to the minute
 * and its trust ladder are worth their tokens.
 */
const TIGHT_TRY_BUDGET = 250;

/** The pack of `results` (best first) within `budget` tokens. */
export function packResults(results: readonly Ranked[], budget: number): Pack {
  if (results.length === 0)
    return { text: NOTHING_FOUND, tokens: countTokens(NOTHING_FOUND), entries: [], truncated: false };
  const frame = frameFor(results[0]!, budget);
  const pack = packIn(frame, results, budget);
  if (frame === "tight" || budget > TIGHT_TRY_BUDGET) return pack;
  const tight = packIn("tight", results, budget);
  return tight.entries.length > pack.entries.length ? tight : pack;
}

function packIn(frame: PackFrame, results: readonly Ranked[], budget: number): Pack {
  const header = PACK_HEADER[frame];
  const chosen: Chosen[] = [];
  let used = countTokens(header);
  let skipped = false;
  for (const r of results) {
    const block = packedEvidence(r.entry, chosen.length + 1, frame);
    const cost = countTokens(block) + (chosen.some((c) => c.entry.category === r.entry.category) ? 1 : 3);
    if (used + cost > budget) {
      skipped = true;
      continue;
    }
    chosen.push({ ...r, block, tokens: countTokens(block) });
    used += cost;
  }
  let text = render(header, chosen);
  // The pieces' counts can differ from the whole's by a token at a seam: drop the last until it fits.
  while (chosen.length > 0 && countTokens(text) > budget) {
    chosen.pop();
    skipped = true;
    text = render(header, chosen);
  }
  if (chosen.length === 0) return firstCut(results, budget);
  return finish(text, chosen, skipped);
}

/** The regular frame unless it would leave the best entry out; then the tight one. */
function frameFor(best: Ranked, budget: number): PackFrame {
  const block = packedEvidence(best.entry, 1, "regular");
  return countTokens(render(PACK_HEADER.regular, [{ ...best, block, tokens: 0 }])) <= budget
    ? "regular"
    : "tight";
}

/**
 * No entry fits whole: the best one with as much of its content as fits (at least one entry, as
 * `max_tokens` promises too), or, when not even its label fits, a line saying so.
 */
function firstCut(results: readonly Ranked[], budget: number): Pack {
  const best = results[0]!;
  const at = (cut: number): Chosen => {
    const block = packedEvidence(best.entry, 1, "tight", cut);
    return { ...best, block, tokens: countTokens(block), cut };
  };
  let lo = 0;
  let hi = best.entry.content.length - 1;
  if (countTokens(render(PACK_HEADER.tight, [at(0)])) > budget) {
    const needs = countTokens(render(PACK_HEADER.tight, [at(best.entry.content.length)]));
    return nothingFits(results.length, budget, needs);
  }
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (countTokens(render(PACK_HEADER.tight, [at(mid)])) <= budget) lo = mid;
    else hi = mid - 1;
  }
  const chosen = [at(lo)];
  return finish(render(PACK_HEADER.tight, chosen), chosen, true);
}

function nothingFits(found: number, budget: number, needs: number): Pack {
  const text = `Recalled memory: ${found} ${found === 1 ? "entry" : "entries"} matched; none fits in ${budget} tokens (the best needs ${needs}).`;
  return { text, tokens: countTokens(text), entries: [], truncated: true };
}

function finish(text: string, chosen: readonly Chosen[], truncated: boolean): Pack {
  const entries = chosen.map((c) => ({
    id: c.entry.id,
    category: c.entry.category,
    trust: c.entry.trust,
    origin: c.entry.origin,
    valid_from: c.entry.valid_from,
    valid_to: c.entry.valid_to,
    score: c.score,
    tokens: c.tokens,
    ...(c.cut === undefined ? {} : { cut: true as const }),
  }));
  return { text, tokens: countTokens(text), entries, truncated };
}

/** The header, then one section per category (in the order of its best entry), blocks by rank. */
function render(header: string, chosen: readonly Chosen[]): string {
  const sections = new Map<string, string[]>();
  for (const c of chosen) {
    const blocks = sections.get(c.entry.category) ?? [];
    blocks.push(c.block);
    sections.set(c.entry.category, blocks);
  }
  const parts = [...sections].map(([category, blocks]) => `## ${category}\n${blocks.join("\n")}`);
  return [header, ...parts].join("\n\n");
}
