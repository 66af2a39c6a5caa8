/**
 * Question categories. LoCoMo files number them (1 multi-hop, 2 temporal, 3 open-domain,
 * 4 single-hop, 5 adversarial, as the public evaluations of LoCoMo read them); this project's set
 * adds 6 for paraphrase. The reader accepts the numbers or the names.
 */
export const CATEGORY_BY_NUMBER: Readonly<Record<number, string>> = {
  1: "multi-hop",
  2: "temporal",
  3: "open-domain",
  4: "single-hop",
  5: "adversarial",
  6: "paraphrase",
};

export const NUMBER_BY_CATEGORY: Readonly<Record<string, number>> = Object.fromEntries(
  Object.entries(CATEGORY_BY_NUMBER).map(([n, name]) => [name, Number(n)]),
);

/**
 * Adversarial questions ask about things the conversation never says; their evidence turns are
 * not an answer to retrieve, so they are left out of the retrieval scores (as the reference
 * measurement does).
 */
export const UNSCORED_CATEGORIES: ReadonlySet<string> = new Set(["adversarial"]);

/** A category as a name: a LoCoMo number, a known name, or the text as given. */
export function categoryName(raw: unknown): string {
  if (typeof raw === "number") return CATEGORY_BY_NUMBER[raw] ?? `category-${raw}`;
  if (typeof raw === "string" && raw.trim() !== "") {
    const asNumber = Number(raw);
    if (Number.isInteger(asNumber)) return categoryName(asNumber);
    return raw.trim().toLowerCase();
  }
  return "uncategorised";
}
