/** The BM25 baseline as a retriever: one in-memory index per conversation. */
import { Bm25 } from "./bm25.ts";
import { LIMIT, type Retriever, turnContent } from "./retriever.ts";

export function bm25Retriever(): Retriever {
  return {
    async load(conversation) {
      const index = new Bm25(conversation.turns.map((t) => ({ id: t.id, text: turnContent(t) })));
      const session = new Map(conversation.turns.map((t) => [t.id, t.session]));
      return async (query) =>
        index.search(query, LIMIT).map((hit) => ({ id: hit.id, session: session.get(hit.id)! }));
    },
    async close() {},
  };
}
