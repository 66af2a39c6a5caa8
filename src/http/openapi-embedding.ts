import { EMBEDDING_FIELD_KEY, type EmbeddingUse } from "../models/embedding-field.ts";

type Json = Record<string, unknown>;

/** What the document says about vectors: the runtime's embedder and its dimension. */
export interface EmbeddingRule {
  embedder: string;
  dims: number;
}

/**
 * A float64 rounds to a float32 infinity from 2^128 − 2^103 on, and to zero up to 2^-150: the
 * bounds of a finite float32 and the smallest magnitude that is not zero once the vector is stored
 * as float32 (src/embedding/embedder.ts refuses an infinite element and an all-zero vector).
 */
const FLOAT32_OVERFLOW = 3.4028235677973366e38;
const FLOAT32_ZERO = 7.006492321624085e-46;

/**
 * Writes the configured rule into every schema marked `EmbeddingField` (src/models/embedding-field.ts):
 * exactly `dims` numbers, each finite as a float32, not all zero; and on writes, when the vector
 * is accepted (only from a `client` embedder, which then requires it); under any other embedder a
 * write's field is `not: {}` (no value allowed). Without a rule (a document built without the
 * configuration) only the marks go.
 */
export function writeEmbeddingRule(doc: Json, rule: EmbeddingRule | undefined): void {
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (!value || typeof value !== "object") return;
    const schema = value as Json;
    if (rule) requireWhenClient(schema, rule);
    const use = schema[EMBEDDING_FIELD_KEY] as EmbeddingUse | undefined;
    if (use) {
      delete schema[EMBEDDING_FIELD_KEY];
      // Replaced whole: the marked schema's own keywords (`type`, `items`) would contradict `not`.
      if (rule) {
        for (const key of Object.keys(schema)) delete schema[key];
        Object.assign(schema, embeddingSchema(use, rule));
      }
    }
    for (const child of Object.values(schema)) visit(child);
  };
  visit(doc);
}

/** With a `client` embedder, an entry's vector is required (the runtime makes none itself). */
function requireWhenClient(schema: Json, rule: EmbeddingRule): void {
  const field = (schema.properties as Json | undefined)?.embedding as Json | undefined;
  if (rule.embedder !== "client" || field?.[EMBEDDING_FIELD_KEY] !== "write") return;
  const required = (schema.required as string[] | undefined) ?? [];
  if (!required.includes("embedding")) schema.required = [...required, "embedding"];
}

function embeddingSchema(use: EmbeddingUse, rule: EmbeddingRule): Json {
  const shape = `Exactly ${rule.dims} numbers (the configured dimension), each finite as a float32, not all zero; normalised to unit length.`;
  // Refused by the schema itself, not only in words: generators and validating proxies read the
  // schema, and this document is this deployment's (the embedder is fixed at start).
  if (use === "write" && rule.embedder !== "client")
    return {
      not: {},
      description: `Accepted only when the runtime's embedder is \`client\`; this one's is \`${rule.embedder}\`, so a write that gives one is refused (422 \`validation_failed\`, at \`/embedding\`). Under \`client\`: ${shape}`,
    };
  const when =
    use === "search"
      ? "The query vector (else the query text is embedded)."
      : "Required: this runtime's embedder is `client` (the caller sends every entry's vector).";
  return {
    type: "array",
    minItems: rule.dims,
    maxItems: rule.dims,
    items: { type: "number", exclusiveMinimum: -FLOAT32_OVERFLOW, exclusiveMaximum: FLOAT32_OVERFLOW },
    contains: { not: { type: "number", minimum: -FLOAT32_ZERO, maximum: FLOAT32_ZERO } },
    description: `${when} ${shape}`,
  };
}
