/**
 * `POST /memory/context` (docs/context-pack.md): a search's filters and a token budget in, a
 * prompt-ready block of the best entries out. The filters are the search body's own schema pieces,
 * so both validate alike and cannot drift apart.
 */
import { type Static, Type } from "@sinclair/typebox";
import { CATEGORIES } from "../models/category.ts";
import { Chars } from "../models/chars.ts";
import { IsoTime, LiteralUnion, Sha8, StrictObject } from "../models/common.ts";
import { Origin, TrustLevel } from "../models/origin.ts";
import { named } from "../models/schema-name.ts";
import { SCOPE_FILTERS } from "../models/scope.ts";
import { SearchBody } from "../models/search.ts";
import { SEARCH_CONTROL_FIELDS } from "../models/search-controls.ts";

/** The tokenizer's encoding `tokens` is counted in (GPT-4o, GPT-4.1, o-series, GPT-5). */
export const CONTEXT_ENCODING = "o200k_base";

/**
 * At least what the smallest answer takes (the frame and one short entry, or a "nothing fits"
 * line); at most 100,000, past which a pack could not fill anyway (it holds at most 100 entries).
 */
export const MIN_BUDGET_TOKENS = 32;
export const MAX_BUDGET_TOKENS = 100_000;

const { embedding, categories, tags, tags_any, status, min_trust, valid_at, as_of } = SearchBody.properties;
// The ranking controls a pack keeps: `max_tokens` is its budget's, `explain` is metadata it leaves out.
const { max_tokens: _, explain: __, ...RANKING } = SEARCH_CONTROL_FIELDS;

export const ContextBody = named(
  "ContextRequest",
  StrictObject({
    query: Chars(1, 4096, { description: "What the agent is about to answer or do" }),
    budget_tokens: Type.Integer({
      minimum: MIN_BUDGET_TOKENS,
      maximum: MAX_BUDGET_TOKENS,
      description: `The most tokens \`text\` may take, counted with ${CONTEXT_ENCODING}: the pack fills it with the best entries that fit whole`,
    }),
    embedding,
    categories,
    tags,
    tags_any,
    status,
    min_trust,
    valid_at,
    as_of,
    ...SCOPE_FILTERS,
    ...RANKING,
  }),
);
export type ContextBody = Static<typeof ContextBody>;

export const PackedEntry = StrictObject({
  id: Sha8,
  category: LiteralUnion(CATEGORIES),
  trust: TrustLevel,
  // The whole origin and the exact times: the label in `text` has a short origin, times to the minute or day.
  origin: Origin,
  valid_from: IsoTime,
  valid_to: Type.Union([IsoTime, Type.Null()]),
  score: Type.Number({ description: "The search's score (after boosts)" }),
  tokens: Type.Integer({ minimum: 0, description: "Tokens of its block in `text`" }),
  cut: Type.Optional(
    Type.Literal(true, {
      description: "Only the beginning of its content fit (the first entry, when no entry fits whole)",
    }),
  ),
});

export const ContextResponse = named(
  "ContextPack",
  StrictObject({
    text: Type.String({
      description:
        "The prompt-ready block: entries grouped by category, best first, each labelled with its id, validity, trust and origin, its content quoted as data; or a line saying nothing was found or fits",
    }),
    tokens: Type.Integer({ minimum: 0, description: "Tokens of `text`, counted with `encoding`" }),
    encoding: Type.Literal(CONTEXT_ENCODING),
    budget_tokens: Type.Integer(),
    entries: Type.Array(PackedEntry, { description: "The entries `text` holds, best first" }),
    truncated: Type.Boolean({
      description:
        "Something relevant was left out: a result did not fit, the first was cut, or the pack reached 100 entries",
    }),
    considered: Type.Integer({ minimum: 0, description: "The search results the pack chose from" }),
  }),
);
export type ContextResponse = Static<typeof ContextResponse>;
