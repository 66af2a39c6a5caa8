import { type Static, type TOptional, type TProperties, Type } from "@sinclair/typebox";
import { CATEGORIES, type Category } from "./category.ts";
import { Chars } from "./chars.ts";
import {
  Cursor,
  IsoTime,
  LiteralUnion,
  NextCursor,
  QueryInteger,
  QueryObject,
  Sha8,
  StrictObject,
  Timestamp,
} from "./common.ts";
import { EmbeddingField } from "./embedding-field.ts";
import { MinTrust, Origin, TrustLevel } from "./origin.ts";
import { named } from "./schema-name.ts";
import { AgentId, type RELATIONSHIP_SCOPE_FIELD, SCOPE_FILTERS, SessionId, SubjectId } from "./scope.ts";

/** Fields every category shares (CONTRACT §5). */
const base = {
  content: Chars(1, 32_768),
  tags: Type.Optional(Type.Array(Chars(1, 64), { maxItems: 64 })),
  data: Type.Optional(
    Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          "Any JSON object of at most 16 KiB as JSON, with no key `__proto__` at any depth (422 otherwise)",
      },
    ),
  ),
  valid_from: Type.Optional(Timestamp),
  valid_to: Type.Optional(
    Type.Union([Timestamp, Type.Null()], {
      description: "After valid_from (422 otherwise); null: open-ended",
    }),
  ),
  supersedes: Type.Optional({
    ...Sha8,
    description:
      "An entry of this tenant that this one replaces; this one must become valid after it (422 otherwise)",
  }),
  corrects: Type.Optional({
    ...Sha8,
    description: "An entry of this tenant that this one corrects (422 otherwise)",
  }),
  agent_id: Type.Optional(AgentId),
  // Scopes (scope.ts): on a relationship, `subject` is its triple's and the scope's is `scope_subject`.
  subject: Type.Optional(SubjectId),
  session_id: Type.Optional(SessionId),
  source: Type.Optional(
    StrictObject({
      system: Chars(1, 64),
      event_id: Type.Optional(Chars(1, 512)),
      event_type: Type.Optional(Chars(1, 128)),
      url: Type.Optional(Chars(1, 2048)),
    }),
  ),
  embedding: Type.Optional(EmbeddingField("write")),
  tenant_id: Type.Optional(
    Chars(0, 64, { description: "The caller's own tenant, if given (a write into another tenant is a 403)" }),
  ),
};

const Currency = Type.String({ pattern: "^[A-Z]{3}$", description: "ISO 4217" });
const Money = Type.Number({ minimum: -1e15, maximum: 1e15 });
const ShortText = Chars(1, 4096);
const OpenOrResolved = Type.Union([Type.Literal("open"), Type.Literal("resolved")]);

/**
 * The `status` filter of a list or a search: decisions and exceptions whose state is open or
 * resolved, kept current by their objects' lifecycle events (docs/source-mappings.md); other
 * categories carry no status and are left out by it.
 */
export const StatusFilter = Type.Union([Type.Literal("open"), Type.Literal("resolved")], {
  description:
    "Only decisions and exceptions of this status (`open`: still open problems and pending decisions); other categories carry none",
});

/** Typed fields per category; the request schema of `POST /memory/{category}` is base + these. */
export const TYPED_FIELDS = {
  decision: {
    rationale: Type.Optional(Chars(0, 8192)),
    options: Type.Optional(Type.Array(ShortText, { maxItems: 64 })),
    chosen: Type.Optional(ShortText),
    amount: Type.Optional(Money),
    currency: Type.Optional(Currency),
    stage: Type.Optional(Chars(1, 128)),
  },
  exception: {
    severity: Type.Optional(
      Type.Union([
        Type.Literal("low"),
        Type.Literal("medium"),
        Type.Literal("high"),
        Type.Literal("critical"),
      ]),
    ),
    status: Type.Optional(OpenOrResolved),
  },
  fact: {},
  workflow: {
    steps: Type.Optional(Type.Array(ShortText, { maxItems: 256 })),
  },
  relationship: {
    subject: Chars(1, 1024),
    predicate: Chars(1, 256),
    object: Chars(1, 1024),
  },
  outcome: {
    decision_id: { ...Sha8, description: "A decision of this tenant (422 otherwise)" },
    result: Type.Union([Type.Literal("success"), Type.Literal("failure"), Type.Literal("neutral")]),
    amount: Type.Optional(Money),
    currency: Type.Optional(Currency),
  },
} as const;

/**
 * An entry links to at most one other: `supersedes` or `corrects`, not both (the writer checks it).
 * Said with `dependentSchemas`, not a top-level `not`, which Elysia reads as a list.
 */
const ONE_LINK = { dependentSchemas: { supersedes: { not: { required: ["corrects"] } } } };

export const DecisionInput = named(
  "DecisionInput",
  StrictObject({ ...base, ...TYPED_FIELDS.decision }, ONE_LINK),
);
export const ExceptionInput = named(
  "ExceptionInput",
  StrictObject({ ...base, ...TYPED_FIELDS.exception }, ONE_LINK),
);
export const FactInput = named("FactInput", StrictObject({ ...base, ...TYPED_FIELDS.fact }, ONE_LINK));
export const WorkflowInput = named(
  "WorkflowInput",
  StrictObject({ ...base, ...TYPED_FIELDS.workflow }, ONE_LINK),
);
/** A relationship's scope subject, apart from its triple's `subject` (scope.ts). */
const RELATIONSHIP_SCOPE = { scope_subject: Type.Optional(SubjectId) } satisfies Record<
  typeof RELATIONSHIP_SCOPE_FIELD,
  unknown
>;

export const RelationshipInput = named(
  "RelationshipInput",
  StrictObject({ ...base, ...TYPED_FIELDS.relationship, ...RELATIONSHIP_SCOPE }, ONE_LINK),
);
export const OutcomeInput = named(
  "OutcomeInput",
  StrictObject({ ...base, ...TYPED_FIELDS.outcome }, ONE_LINK),
);

/** `Idempotency-Key` of a write (a header over HTTP, an argument over MCP): 1–255 visible ASCII characters. */
export const IdempotencyKey = Type.String({
  pattern: "^[\\x21-\\x7e]{1,255}$",
  description:
    "A retry within 24 h with the same key and the same body answers the first response (`Idempotent-Replayed: true`); the same key with another body is refused (422 `idempotency_mismatch`)",
});

export const ENTRY_INPUT = {
  decision: DecisionInput,
  exception: ExceptionInput,
  fact: FactInput,
  workflow: WorkflowInput,
  relationship: RelationshipInput,
  outcome: OutcomeInput,
} as const;

export type DecisionInput = Static<typeof DecisionInput>;
export type ExceptionInput = Static<typeof ExceptionInput>;
export type FactInput = Static<typeof FactInput>;
export type WorkflowInput = Static<typeof WorkflowInput>;
export type RelationshipInput = Static<typeof RelationshipInput>;
export type OutcomeInput = Static<typeof OutcomeInput>;

type InputOf = {
  decision: DecisionInput;
  exception: ExceptionInput;
  fact: FactInput;
  workflow: WorkflowInput;
  relationship: RelationshipInput;
  outcome: OutcomeInput;
};

/** What a caller or a connector asks to be written: a category and that category's body. */
export type EntryDraft = { [C in Category]: { category: C } & InputOf[C] }[Category];
export type EntrySource = NonNullable<FactInput["source"]>;

/** An entry as stored and returned (CONTRACT §5): derived from its response schema (EntryView, below). */
export type Entry = Static<typeof EntryView>;

/** Fields the server owns; they are never taken from a request body. */
export const SERVER_FIELDS = [
  "id",
  "category",
  "recorded_at",
  "expired_at",
  "invalidated_at",
  "created_by",
  // Stamped by the runtime (docs/trust-and-provenance.md): a body that sets either is a 422.
  "origin",
  "trust",
] as const;

export const MAX_DATA_BYTES = 16 * 1024;

// ── entries as returned ─────────────────────────────────────────────────────────────────────

/** The same properties, each optional. */
function optionalAll<T extends TProperties>(props: T): { [K in keyof T]: TOptional<T[K]> } {
  return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, Type.Optional(v)])) as {
    [K in keyof T]: TOptional<T[K]>;
  };
}

/**
 * Fields the server sets on an entry of one category, refused in its request body (422 as unknown
 * fields): a decision's `status` is `open` until an outcome names it, then `resolved`.
 */
const SERVER_TYPED_FIELDS = { status: Type.Optional(OpenOrResolved) };

/** Every category's typed fields, each optional: an entry carries those of its own category. */
const ANY_TYPED_FIELDS = {
  ...SERVER_TYPED_FIELDS,
  ...optionalAll(TYPED_FIELDS.decision),
  ...optionalAll(TYPED_FIELDS.exception),
  ...optionalAll(TYPED_FIELDS.workflow),
  ...optionalAll(TYPED_FIELDS.relationship),
  ...RELATIONSHIP_SCOPE,
  ...optionalAll(TYPED_FIELDS.outcome),
};

/** An entry as the API returns it (CONTRACT §5): the request fields plus the server's. */
export const EntryView = named(
  "Entry",
  StrictObject({
    ...ANY_TYPED_FIELDS,
    id: Sha8,
    tenant_id: Type.String(),
    category: LiteralUnion(CATEGORIES),
    content: Type.String(),
    tags: Type.Optional(Type.Array(Type.String())),
    data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    valid_from: IsoTime,
    valid_to: Type.Union([IsoTime, Type.Null()]),
    supersedes: Type.Optional(Sha8),
    corrects: Type.Optional(Sha8),
    agent_id: Type.String(),
    session_id: Type.Optional(SessionId),
    source: Type.Optional(base.source),
    recorded_at: IsoTime,
    expired_at: Type.Union([IsoTime, Type.Null()]),
    invalidated_at: Type.Union([IsoTime, Type.Null()]),
    created_by: Type.String(),
    origin: Origin,
    trust: TrustLevel,
    embedding: Type.Optional(Type.Array(Type.Number(), { description: "Only with ?include=embedding" })),
  }),
);

export const EntryPage = named(
  "EntryPage",
  StrictObject({ items: Type.Array(EntryView), next_cursor: NextCursor }),
);

/** `Decision`, `Fact`, …: the prefix of a category's component names. */
export function schemaPrefix(category: Category): string {
  return `${category[0]!.toUpperCase()}${category.slice(1)}`;
}

/** The fields of `Entry` that every category shares (not a category's typed fields). */
const SHARED_VIEW_FIELDS = Object.fromEntries(
  Object.entries(EntryView.properties).filter(([name]) => !(name in ANY_TYPED_FIELDS)),
);

/** The typed fields an entry of `category` carries: its own (and a decision's server-set `status`). */
function viewTypedFields(category: Category): TProperties {
  const own = optionalAll(TYPED_FIELDS[category] as TProperties);
  // The scope's subject: a relationship's own `subject` is its triple's (scope.ts).
  const scope = category === "relationship" ? RELATIONSHIP_SCOPE : { subject: base.subject };
  return category === "decision" ? { ...SERVER_TYPED_FIELDS, ...own, ...scope } : { ...own, ...scope };
}

/**
 * An entry of one category as the API returns it, for the document: its category fixed and only
 * its own typed fields (`FactEntry`, `DecisionEntry`, …), so a client of `/memory/facts` knows it
 * holds a fact. The code holds every entry as an `Entry` (the static type stays that wide one): the
 * category routes' answers are not checked per request (src/http/unchecked-response.ts), and the
 * suite checks every answer its tests receive against these narrower schemas.
 */
export function entryViewOf(category: Category): typeof EntryView {
  return named(
    `${schemaPrefix(category)}Entry`,
    StrictObject({
      ...viewTypedFields(category),
      ...SHARED_VIEW_FIELDS,
      category: Type.Literal(category),
    }),
  ) as unknown as typeof EntryView;
}

/** A page of one category's entries (`FactPage`, …). */
export function entryPageOf(category: Category): typeof EntryPage {
  return named(
    `${schemaPrefix(category)}Page`,
    StrictObject({ items: Type.Array(entryViewOf(category)), next_cursor: NextCursor }),
  ) as unknown as typeof EntryPage;
}

/** At most this many entries in one `POST /memory/{category}/batch`. */
export const MAX_BATCH = 1000;

/** `POST /memory/{category}/batch`: up to 1,000 bodies of that category's single-write schema. */
export function BatchBody(category: Category) {
  return named(
    `${schemaPrefix(category)}BatchInput`,
    StrictObject({
      entries: Type.Array(ENTRY_INPUT[category], { minItems: 1, maxItems: MAX_BATCH }),
    }),
  );
}

/** A batch's answer: the entries in request order, and for each 201 (written) or 200 (already stored). */
export const BatchReply = StrictObject({
  entries: Type.Array(EntryView),
  // 200 or 201. A union of number literals would be right too, but Elysia's OpenAPI generator
  // writes any literal union as strings; a range says the same and survives it.
  statuses: Type.Array(
    Type.Integer({ minimum: 200, maximum: 201, description: "201 written, 200 already stored" }),
  ),
});

/** A batch's answer for one category (`FactBatchReply`, …): its entries are of that category. */
export function batchReplyOf(category: Category): typeof BatchReply {
  return named(
    `${schemaPrefix(category)}BatchReply`,
    StrictObject({ ...BatchReply.properties, entries: Type.Array(entryViewOf(category)) }),
  ) as unknown as typeof BatchReply;
}

/** `GET /memory/{category}` (CONTRACT §5). */
export const ListEntriesQuery = QueryObject({
  limit: Type.Optional(QueryInteger({ minimum: 1, maximum: 500, default: 50 })),
  cursor: Type.Optional(Cursor),
  tag: Type.Optional(Chars(1, 64)),
  valid_at: Type.Optional(Timestamp),
  as_of: Type.Optional(Timestamp),
  status: Type.Optional(StatusFilter),
  min_trust: Type.Optional(MinTrust),
  ...SCOPE_FILTERS,
  include: Type.Optional(Type.Literal("embedding")),
});

export const ReadEntryQuery = QueryObject({ include: Type.Optional(Type.Literal("embedding")) });
export const EntryParams = Type.Object({ sha8: Sha8 });
