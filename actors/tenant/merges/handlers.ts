import type { MergeTenantProtocol } from "../../../src/protocols/merge-protocol.ts";
import { later } from "../../../src/runtime/later.ts";
import type { Handlers } from "../../../src/runtime/protocol.ts";
import type { TenantMerges } from "./merges.ts";

/** The merge part of the tenant protocol: changes answer once committed. */
export function mergeHandlers(merges: TenantMerges): Handlers<MergeTenantProtocol> {
  return {
    "merge.create": (msg) => {
      const { record, committed } = merges.merge({ ...msg, score: null });
      return later(committed.then(() => record));
    },
    "merge.get": ({ id, within }) => merges.record(id, within),
    "merge.undo": ({ id, by, within }) => {
      const { record, committed } = merges.unmerge(id, by, within);
      return later(committed.then(() => record));
    },
    "merge.reviews": ({ categories, limit, after, within }) =>
      merges.pending(categories, limit, after, within),
    "merge.review.get": ({ id, within }) => merges.review(id, within),
    "merge.review.decide": ({ id, accept, by, within }) => {
      const { committed, ...reply } = merges.decide(id, accept, by, within);
      return later(committed.then(() => reply));
    },
  };
}
