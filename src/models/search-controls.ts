import { type Static, Type } from "@sinclair/typebox";
import { LiteralUnion, StrictObject } from "./common.ts";
import { RERANK_CONTROL_FIELD, RerankExplain } from "./rerank.ts";
import { named } from "./schema-name.ts";

/** The time a recency boost measures an entry's age on. */
export const RECENCY_FIELDS = ["valid_from", "recorded_at"] as const;
export type RecencyField = (typeof RECENCY_FIELDS)[number];

/** At most a century: a longer half-life is no boost at all. */
const MAX_HALF_LIFE_DAYS = 36_500;
/** At most a million tokens: far past any context window, still a bounded number. */
export const MAX_TOKENS_LIMIT = 1_000_000;

/**
 * The ranking controls of `POST /memory/search` (docs/embedding-and-search.md, "Search controls"):
 * fields of the search body, so the route, MCP's `memory_search` and the OpenAPI document share them.
 */
export const SEARCH_CONTROL_FIELDS = {
  recency: Type.Optional(
    StrictObject(
      {
        half_life_days: Type.Number({
          exclusiveMinimum: 0,
          maximum: MAX_HALF_LIFE_DAYS,
          description: "After this many days an entry's boost has halved",
        }),
        field: Type.Optional(
          LiteralUnion(RECENCY_FIELDS, {
            description:
              "Age measured on valid_from (from valid_at) or recorded_at (from as_of); default valid_from",
          }),
        ),
        weight: Type.Optional(
          Type.Number({
            minimum: 0,
            maximum: 1,
            description:
              "Share of the score that decays (default 1): score × (1 − weight + weight × 0.5^(age / half-life))",
          }),
        ),
      },
      { description: "Boost newer entries: the score decays with a half-life" },
    ),
  ),
  diversity: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 1,
      description:
        "Maximal marginal relevance: 0 ranks by score only (default), 1 by novelty only; each result is chosen by (1 − diversity) × score − diversity × its similarity to the results above it",
    }),
  ),
  max_tokens: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_TOKENS_LIMIT,
      description:
        "Results in rank order until their contents' estimated tokens would pass this budget; the first result is always returned",
    }),
  ),
  min_score: Type.Optional(
    Type.Number({ minimum: 0, maximum: 1, description: "Drop results scoring below this (after boosts)" }),
  ),
  explain: Type.Optional(
    Type.Boolean({ description: "Add `explain` to each result: matched terms, relevance, boosts, tokens" }),
  ),
  time_expressions: Type.Optional(
    Type.Boolean({
      description:
        'Read the query\'s time expression ("last May", "in 2023", "two weeks ago") into a valid-time boost, against valid_at (default true); false: they are only words',
    }),
  ),
  context: Type.Optional(
    Type.Boolean({
      description:
        "Let entries written together (one session, one delivery, one writer's tagged entries of a day) lend each other a bounded share of their scores (default true); false: each entry alone",
    }),
  ),
  entities: Type.Optional(
    Type.Boolean({
      description:
        "Follow the query's entities (names, places, identifiers) to the entries linked to them, in up to two hops (default true); false: the fused ranking alone (docs/entities.md)",
    }),
  ),
  ...RERANK_CONTROL_FIELD,
};

/** A result's `explain` (with `explain: true`): how its score and place came about. */
export const ResultExplain = named(
  "SearchExplain",
  StrictObject({
    matched_terms: Type.Array(Type.String(), {
      description:
        "The query's words (lower case) the lexical index found in the entry, stemmed as it matches: `paid` matches `pays`",
    }),
    relevance: Type.Number({
      description: "The fused vector and lexical score (`scores` holds each part), before boosts",
    }),
    recency: Type.Optional(
      Type.Number({ description: "The recency factor the relevance was multiplied by (with `recency`)" }),
    ),
    redundancy: Type.Optional(
      Type.Number({
        description:
          "Its highest similarity to a result ranked above it (with `diversity`): the MMR penalty's base",
      }),
    ),
    tokens: Type.Integer({ minimum: 0, description: "Estimated tokens of the entry's content" }),
    time_window: Type.Optional(
      StrictObject(
        {
          from: Type.Union([Type.String(), Type.Null()], { description: "Start (ISO 8601); null: open" }),
          to: Type.Union([Type.String(), Type.Null()], {
            description: "End, excluded (ISO 8601); null: open",
          }),
          expression: Type.String({ description: "The query's words it was read from" }),
        },
        { description: "The valid-time window the query's time expression names, against valid_at" },
      ),
    ),
    time: Type.Optional(
      Type.Number({
        description: "The factor the window multiplied the relevance by: 1 in it, down to 0.2 far from it",
      }),
    ),
    context: Type.Optional(
      Type.Number({
        minimum: 0,
        description:
          "What the other results of its episode (entries written together) lent it, at most 0.1: the relevance is the fused score plus this, at most 1",
      }),
    ),
    rerank: Type.Optional(RerankExplain),
    source_spread: Type.Optional(
      Type.Literal(true, {
        description:
          "Lifted from below the first `limit` so that its source (`source.system`, or the agents' own writes) has a place among results that one source held",
      }),
    ),
    entities: Type.Optional(
      Type.Union(
        [
          Type.Array(Type.String()),
          Type.Literal("building", { description: "The entity index is being built after an open: no hops" }),
        ],
        {
          description:
            "The entities (keys, docs/entities.md) that linked it to the query: the query's own (hop 1) or one a better result names (hop 2); their boost is in `relevance`. `building`: the tenant's entity index was still being built after an open, so the search followed no entities",
        },
      ),
    ),
    hop: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 2,
        description:
          "1: it mentions an entity of the query; 2: it was reached through an entity of a better result",
      }),
    ),
  }),
);
export type ResultExplain = Static<typeof ResultExplain>;

/** The controls as the tenant actor takes them (src/search/service.ts converts the body's). */
export interface SearchControls {
  recency?: { halfLifeMs: number; field: RecencyField; weight: number };
  /** In (0, 1]; absent or 0: no reranking. */
  diversity?: number;
  maxTokens?: number;
  minScore?: number;
  explain?: boolean;
  /** False: the query's time words are only words (no window). */
  timeExpressions?: false;
  /** False: no episode context (src/search/controls/context/episodes.ts). */
  context?: false;
  /** False: no entity hops (src/search/controls/entities/entity-hops.ts). */
  entities?: false;
}

type ControlFields = {
  [K in keyof typeof SEARCH_CONTROL_FIELDS]?: Static<(typeof SEARCH_CONTROL_FIELDS)[K]>;
};

const DAY_MS = 24 * 3600 * 1000;

/** The body's controls in the actor's terms; undefined when none is asked for. */
export function searchControlsOf(body: ControlFields): SearchControls | undefined {
  const controls: SearchControls = {};
  if (body.recency) {
    const { half_life_days, field = "valid_from", weight = 1 } = body.recency;
    controls.recency = { halfLifeMs: half_life_days * DAY_MS, field, weight };
  }
  if (body.diversity) controls.diversity = body.diversity;
  if (body.max_tokens !== undefined) controls.maxTokens = body.max_tokens;
  if (body.min_score) controls.minScore = body.min_score;
  if (body.explain) controls.explain = true;
  if (body.time_expressions === false) controls.timeExpressions = false;
  if (body.context === false) controls.context = false;
  if (body.entities === false) controls.entities = false;
  return Object.keys(controls).length > 0 ? controls : undefined;
}
