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
