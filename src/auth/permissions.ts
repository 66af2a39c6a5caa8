import { CATEGORIES, type Category, PLURAL_OF } from "../models/category.ts";

/**
 * Permission strings are colon-separated segments: `memory:write:decisions`. A held permission
 * grants a needed one when each of its segments equals the needed segment at that position, or is
 * `*` (which grants everything below it). A shorter held permission grants every narrowing of it:
 * `memory:write` grants `memory:write:decisions`, never the reverse.
 */
export function grants(held: string, needed: string): boolean {
  const h = held.split(":");
  const n = needed.split(":");
  for (let i = 0; i < h.length; i++) {
    if (h[i] === "*") return true;
    if (i >= n.length || h[i] !== n[i]) return false;
  }
  return true;
}

export function anyGrants(held: readonly string[], needed: string): boolean {
  return held.some((p) => grants(p, needed));
}

/**
 * `override`: supersede, correct or retract an entry of higher trust than the writer's
 * (provenance/trust-rule.ts); `merge`: merge, un-merge and review near-duplicates (docs/memory.md).
 */
export type MemoryAction = "read" | "write" | "search" | "override" | "merge";

export function memoryPermission(action: MemoryAction, category?: Category): string {
  return category ? `memory:${action}:${PLURAL_OF[category]}` : `memory:${action}`;
}

/** The categories an action is allowed on (category narrowing: `memory:search:facts`). */
export function allowedCategories(held: readonly string[], action: MemoryAction): Category[] {
  return CATEGORIES.filter((c) => anyGrants(held, memoryPermission(action, c)));
}
