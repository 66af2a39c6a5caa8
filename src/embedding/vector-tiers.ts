import { USE_LITE_DIMS } from "./use-lite.ts";

/**
 * The two tiers of a vector in the sentence model's space (issue 30): the distilled table's
 * (`static`, made in microseconds) and the model's own (`model`, USE-lite). The table was fitted
 * to the model's vectors, so both are comparable and one may replace the other: a vault, an
 * export, an import may hold both.
 */
export type VectorTier = "static" | "model";

/** The embedders whose vectors live in that space, and the tiers each makes. */
export type ModelSpaceKind = "local" | "static" | "tiered";
const MODEL_SPACE: readonly string[] = ["local", "static", "tiered"];

/** The model-space embedder a signature (`kind/dims`, background-embedder.ts) names, if any. */
export function modelSpaceKindOf(signature: string | undefined): ModelSpaceKind | undefined {
  const [kind, dims, more] = (signature ?? "").split("/");
  const inSpace = more === undefined && MODEL_SPACE.includes(kind ?? "") && dims === String(USE_LITE_DIMS);
  return inSpace ? (kind as ModelSpaceKind) : undefined;
}

/**
 * The tier of a vault's vector under the embedder that made it. Under `tiered` a vector whose
 * entry is still queued is the table's (the queue record is the upgrade to come).
 */
export function tierOf(kind: ModelSpaceKind, queued: boolean): VectorTier {
  if (kind === "tiered") return queued ? "static" : "model";
  return kind === "local" ? "model" : "static";
}

/**
 * What becomes of a vector of `tier` arriving (an import, a switch of embedder) under `kind`:
 * kept as it is, kept and queued for the model's upgrade (`tiered`'s table vectors), or dropped so
 * the runtime's own embedder makes it again (`local` makes only model vectors, `static` only the
 * table's, as their own writes do).
 */
export function arrivingVector(tier: VectorTier, kind: ModelSpaceKind): "keep" | "upgrade" | "drop" {
  if (kind === "tiered") return tier === "static" ? "upgrade" : "keep";
  return tierOf(kind, false) === tier ? "keep" : "drop";
}

/**
 * The tier of an export's vector when its line does not say (exports of before `tier`): the
 * exporting embedder's; for `tiered` the table's, so that an importing `tiered` runtime upgrades
 * it rather than keeps a table vector for good (a model vector upgraded again is the same).
 */
export function unlabelledTier(exporter: ModelSpaceKind): VectorTier {
  return exporter === "local" ? "model" : "static";
}
