import type { Caller } from "../auth/caller.ts";
import type { Guard } from "../auth/guard.ts";
import { anyGrants, memoryPermission } from "../auth/permissions.ts";
import type { EmbedderKind } from "../embedding/embedder.ts";
import type { Category } from "../models/category.ts";
import type { DedupeMode, SimilarAsk } from "../models/similar.ts";

/**
 * What a single write asks about near-duplicates (src/models/similar.ts). Only a caller who may read
 * the category is told of them: their ids, or with `dedupe` the existing entry itself, would show
 * it entries it cannot read. So `dedupe` without that permission is refused (403, recorded; `merge`
 * needs `memory:merge` on the category besides), and
 * without it and without `dedupe` nothing is looked for. The write's vector is compared only when
 * it is the caller's own (`client`): feature hashing knows nothing the words do not already say,
 * and the other embedders make vectors after the write.
 */
export function similarAsk(
  guard: Guard,
  embedder: EmbedderKind,
  caller: Caller,
  category: Category,
  dedupe?: DedupeMode,
): SimilarAsk | undefined {
  const read = memoryPermission("read", category);
  if (dedupe) guard.require(caller.principal, read, caller.req);
  else if (!anyGrants(guard.permissionsOf(caller.principal), read)) return undefined;
  // A merge hides an entry from every reader: a decision of its own (memory:merge), not a write's.
  if (dedupe === "merge") guard.require(caller.principal, memoryPermission("merge", category), caller.req);
  return { dedupe: dedupe === "similar", merge: dedupe === "merge", byVector: embedder === "client" };
}
