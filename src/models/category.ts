/** The six memory categories: singular in bodies, plural in paths. */
export const CATEGORIES = ["decision", "exception", "fact", "workflow", "relationship", "outcome"] as const;
export type Category = (typeof CATEGORIES)[number];

export const PLURAL_OF: Record<Category, string> = {
  decision: "decisions",
  exception: "exceptions",
  fact: "facts",
  workflow: "workflows",
  relationship: "relationships",
  outcome: "outcomes",
};

const SINGULAR_OF = new Map<string, Category>(CATEGORIES.map((c) => [PLURAL_OF[c], c]));

export function categoryFromPlural(segment: string): Category | undefined {
  return SINGULAR_OF.get(segment);
}

export function isCategory(value: unknown): value is Category {
  return typeof value === "string" && (CATEGORIES as readonly string[]).includes(value);
}
