import { type Static, Type } from "@sinclair/typebox";
import type { Category } from "./category.ts";
import { Sha8, StrictObject, Timestamp } from "./common.ts";

/** Fields every category shares (CONTRACT §5). */
const base = {
  content: Type.String({ minLength: 1, maxLength: 32_768 }),
  tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 64 })),
  data: Type.Optional(Type.Object({}, { additionalProperties: true, description: "≤ 16 KiB as JSON" })),
  valid_from: Type.Optional(Timestamp),
  valid_to: Type.Optional(Type.Union([Timestamp, Type.Null()])),
  supersedes: Type.Optional(Sha8),
  corrects: Type.Optional(Sha8),
  agent_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  source: Type.Optional(
    StrictObject({
      system: Type.String({ minLength: 1, maxLength: 64 }),
      event_id: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
      event_type: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
      url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    }),
  ),
  embedding: Type.Optional(Type.Array(Type.Number(), { minItems: 1, maxItems: 4096 })),
  tenant_id: Type.Optional(Type.String({ maxLength: 64 })),
};

const Currency = Type.String({ pattern: "^[A-Z]{3}$", description: "ISO 4217" });
const Money = Type.Number({ minimum: -1e15, maximum: 1e15 });
const ShortText = Type.String({ minLength: 1, maxLength: 4096 });
const OpenOrResolved = Type.Union([Type.Literal("open"), Type.Literal("resolved")]);

/** Typed fields per category; the request schema of `POST /memory/{category}` is base + these. */
export const TYPED_FIELDS = {
  decision: {
    status: Type.Optional(OpenOrResolved),
    rationale: Type.Optional(Type.String({ maxLength: 8192 })),
    options: Type.Optional(Type.Array(ShortText, { maxItems: 64 })),
    chosen: Type.Optional(ShortText),
    amount: Type.Optional(Money),
    currency: Type.Optional(Currency),
    stage: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
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
    subject: Type.String({ minLength: 1, maxLength: 1024 }),
    predicate: Type.String({ minLength: 1, maxLength: 256 }),
    object: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  outcome: {
    decision_id: Sha8,
    result: Type.Union([Type.Literal("success"), Type.Literal("failure"), Type.Literal("neutral")]),
    amount: Type.Optional(Money),
    currency: Type.Optional(Currency),
  },
} as const;

export const DecisionInput = StrictObject({ ...base, ...TYPED_FIELDS.decision });
export const ExceptionInput = StrictObject({ ...base, ...TYPED_FIELDS.exception });
export const FactInput = StrictObject({ ...base, ...TYPED_FIELDS.fact });
export const WorkflowInput = StrictObject({ ...base, ...TYPED_FIELDS.workflow });
export const RelationshipInput = StrictObject({ ...base, ...TYPED_FIELDS.relationship });
export const OutcomeInput = StrictObject({ ...base, ...TYPED_FIELDS.outcome });

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

/** An entry as stored and returned (CONTRACT §5): the request fields plus server-managed ones. */
export type Entry = Omit<EntryDraft, "embedding" | "tenant_id" | "valid_from" | "valid_to"> & {
  id: string;
  tenant_id: string;
  category: Category;
  valid_from: string;
  valid_to: string | null;
  recorded_at: string;
  expired_at: string | null;
  invalidated_at: string | null;
  created_by: string;
  embedding?: number[];
  [field: string]: unknown;
};

/** Fields the server owns; they are never taken from a request body. */
export const SERVER_FIELDS = [
  "id",
  "category",
  "recorded_at",
  "expired_at",
  "invalidated_at",
  "created_by",
] as const;

export const MAX_DATA_BYTES = 16 * 1024;
