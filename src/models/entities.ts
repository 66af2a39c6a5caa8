import { type Static, Type } from "@sinclair/typebox";
import { CATEGORIES } from "./category.ts";
import { TextMatching } from "./checked-kind.ts";
import { LiteralUnion, QueryInteger, QueryObject, StrictObject, Timestamp } from "./common.ts";
import { EntryView } from "./entry.ts";
import { named } from "./schema-name.ts";

/** Longest entity name asked for (the recogniser keeps names and identifiers up to this). */
export const MAX_ENTITY_NAME = 128;

/**
 * `GET /memory/entities/{name}`: a name or identifier as written ("Acme Logistics",
 * "mary@acme.io", "cus_Nf2…"); letters, digits, spaces and `.-_@#&'’:+`, case and accents ignored.
 */
export const EntityParams = Type.Object({
  name: TextMatching({
    minLength: 1,
    maxLength: MAX_ENTITY_NAME,
    pattern: "^[\\p{L}\\p{M}\\p{N}#][\\p{L}\\p{M}\\p{N} .\\-_@#&'’:+]*$",
    description: "An entity's name or identifier (1–128 characters: letters, digits, spaces, `.-_@#&'’:+`)",
    rule: "an entity name: 1–128 letters, digits, spaces or .-_@#&'’:+, starting with a letter, a digit or #",
  }),
});

export const EntityQuery = QueryObject({
  valid_at: Type.Optional(Timestamp),
  as_of: Type.Optional(Timestamp),
  limit: Type.Optional(QueryInteger({ minimum: 1, maximum: 100, default: 20 })),
});

const EntityKind = LiteralUnion(["name", "person", "organisation", "email", "domain", "id"] as const);

const Relationship = StrictObject({
  direction: LiteralUnion(["outgoing", "incoming"] as const, {
    description: "outgoing: the entity is the relationship's subject; incoming: its object",
  }),
  predicate: Type.String(),
  other: Type.String({ description: "The subject or object at the other end, as written" }),
  entry: EntryView,
});

export const EntityAnswer = named(
  "EntityAnswer",
  StrictObject({
    entity: StrictObject({
      key: Type.String({ description: "The normalised key: lower case, accents folded" }),
      name: Type.String(),
      kind: EntityKind,
    }),
    relationships: Type.Array(Relationship),
    entries: Type.Partial(
      Type.Object(Object.fromEntries(CATEGORIES.map((c) => [c, Type.Array(EntryView)]))),
      { additionalProperties: false, description: "Entries mentioning it, per category, current first" },
    ),
    related: Type.Array(
      StrictObject({ key: Type.String(), name: Type.String(), kind: EntityKind, entries: Type.Integer() }),
      { description: "Entities mentioned in the same entries, most shared first" },
    ),
    truncated: Type.Boolean({ description: "More entries or relationships than `limit` were left out" }),
  }),
);
export type EntityAnswer = Static<typeof EntityAnswer>;
