import { type Static, Type } from "@sinclair/typebox";
import { CATEGORIES } from "./category.ts";
import { StrictObject, Timestamp } from "./common.ts";

const Tag = Type.String({ minLength: 1, maxLength: 64 });

/** `POST /memory/search` (CONTRACT §6). */
export const SearchBody = StrictObject({
  query: Type.Optional(Type.String({ maxLength: 4096 })),
  embedding: Type.Optional(Type.Array(Type.Number(), { minItems: 1, maxItems: 4096 })),
  categories: Type.Optional(
    Type.Array(Type.Union(CATEGORIES.map((c) => Type.Literal(c))), {
      minItems: 1,
      maxItems: CATEGORIES.length,
    }),
  ),
  tags: Type.Optional(Type.Array(Tag, { maxItems: 64 })),
  tags_any: Type.Optional(Type.Array(Tag, { maxItems: 64 })),
  valid_at: Type.Optional(Timestamp),
  as_of: Type.Optional(Timestamp),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
});
export type SearchBody = Static<typeof SearchBody>;
