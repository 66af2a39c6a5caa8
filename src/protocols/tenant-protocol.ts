import type { EmbedderState } from "../embedding/embed-scheduler.ts";
import type { Delivery, IngestItem, IngestReply } from "../ingest/ingest-item.ts";
import type { Category } from "../models/category.ts";
import type { Change } from "../models/change.ts";
import type { DeadLetter } from "../models/dead-letter.ts";
import type { EntityAnswer } from "../models/entities.ts";
import type { Entry, EntryDraft } from "../models/entry.ts";
import type { EraseReport, EraseRequest } from "../models/erase.ts";
import type { EntryHistory } from "../models/history.ts";
import type { Provenance, Trust } from "../models/origin.ts";
import type { RevenueFigures } from "../models/revenue.ts";
import type { ScopeFilter } from "../models/scope.ts";
import type { ResultExplain, SearchControls } from "../models/search-controls.ts";
import type { SimilarAsk, SimilarEntry } from "../models/similar.ts";
import type { TenantTransferProtocol } from "../models/tenant-export.ts";
import type { Overrides } from "../provenance/trust-rule.ts";
import type { RerankAsk } from "../search/controls/rerank/reranker.ts";
import type { FusionProfile } from "../search/fusion/fusion-profile.ts";
import type { ConversationTenantProtocol } from "./conversation-protocol.ts";
import type { MergeTenantProtocol } from "./merge-protocol.ts";
import type { OutboundTenantProtocol } from "./outbound-protocol.ts";
import type { WebhookOpsProtocol } from "./webhook-ops-protocol.ts";

/** Messages of the tenant actor (actors/tenant/): one actor per tenant owns its vault and index. */
export interface TenantHealth {
  tenant_id: string;
  status: string;
  vault: { present: boolean; entries: number };
  /**
   * `pending`: vectors searched exactly until the actor inserts them into the graph;
   * `pending_vectors`: entries waiting for the background embedder; `embedder`: its state.
   */
  index: {
    vectors: number;
    pending: number;
    pending_vectors: number;
    /** Under `tiered`: entries whose static-tier vector waits for the model's. */
    pending_upgrades?: number;
    embedder?: EmbedderState;
  };
  dead_letters: number;
  connectors: Record<string, unknown>;
}

export interface TenantStats {
  entries_per_category: Record<Category, number>;
  dead_letters: number;
  writes_per_day: Array<{ day: string; category: Category; writes: number }>;
}

export interface CreateEntry {
  draft: EntryDraft;
  createdBy: string;
  /** The entry's embedding, computed before the message so the mailbox never waits on an embedder. */
  vector?: Float32Array;
  idempotencyKey?: string;
  /** Near-duplicates to look for (a single write by a caller who may read the category). */
  similar?: SimilarAsk;
  /** A subject-restricted writer's reach: the entries it may name (src/auth/subject-scope.ts). */
  within?: ScopeFilter["within"];
  /** Who writes, stamped on the entry (default: an agent named `createdBy`). */
  provenance?: Provenance;
  /** Categories the writer may override entries of higher trust in (none given: not checked). */
  overrides?: Overrides;
}

/** The query of a list call, as the tenant actor takes it (src/memory/service.ts builds it). */
export interface ListQuery {
  limit: number;
  cursor?: string;
  tag?: string;
  validAt: number;
  asOf: number;
  /** Only decisions and exceptions of this status. */
  status?: EntryStatus;
  /** Only entries of this trust or higher. */
  minTrust?: Trust;
  /** Subject, session, agent, and a subject-restricted token's reach (src/models/scope.ts). */
  scope?: ScopeFilter;
  includeEmbedding: boolean;
  /**
   * Every stored entry, newest first, whatever its time: superseded, retracted, corrected and
   * ended ones too, as stored (the dashboard's "show all"); `validAt` and `asOf` are then unused.
   */
  everything?: boolean;
}

export type EntryStatus = "open" | "resolved";

export interface ListEntries extends ListQuery {
  category: Category;
}

export interface SearchEntries {
  text?: string;
  vector?: Float32Array;
  /** How the embedder's cosines weigh against BM25; default an even share (fusion-profile.ts). */
  fusion?: FusionProfile;
  categories: Category[];
  tags: string[];
  tagsAny: string[];
  /** Only decisions and exceptions of this status. */
  status?: EntryStatus;
  /** Only entries of this trust or higher. */
  minTrust?: Trust;
  /** Subject, session, agent, and a subject-restricted token's reach (src/models/scope.ts). */
  scope?: ScopeFilter;
  validAt: number;
  asOf: number;
  limit: number;
  /** Recency, diversity, token budget, minimum score, explanations (search-controls.ts). */
  controls?: SearchControls;
  /** The re-ranking stage's part (src/search/controls/rerank/): score and order, collect, apply scores, fall back. */
  rerank?: RerankAsk;
}

/** `GET /memory/entities/{name}` as the tenant actor takes it (src/entities/service.ts builds it). */
export interface EntityRead {
  name: string;
  /** The categories the caller may read: entries of others are never read. */
  categories: Category[];
  validAt: number;
  asOf: number;
  limit: number;
  /** A subject-restricted token's reach: other entries are never read (src/auth/subject-scope.ts). */
  scope?: ScopeFilter;
}

export interface SearchResult {
  entry: Entry;
  score: number;
  scores: { vector: number; lexical: number };
  explain?: ResultExplain;
}

export type TenantProtocol = {
  "tenant.init": { msg: object; reply: undefined };
  "tenant.health": { msg: object; reply: Omit<TenantHealth, "tenant_id" | "status"> };
  /** Revenue per agent over entries whose valid_from lies in [from, to) (epoch ms). */
  "metrics.revenue": { msg: { from: number; to: number }; reply: RevenueFigures };
  /** The dashboard's counters: entries per category, writes per day in [fromDay, toDay] (UTC days). */
  "tenant.stats": { msg: { fromDay: string; toDay: string }; reply: TenantStats };
  /** The change log after position `after`, oldest first; `last` is the newest position committed. */
  "changes.since": { msg: { after: number; limit: number }; reply: { changes: Change[]; last: number } };
  /** Retraction (transaction time); an entry already retracted or corrected is answered as it is. */
  "entry.retract": {
    /** `trust`/`overrides`: the retracting token's (provenance/trust-rule.ts); none: not checked. */
    msg: { category: Category; id: string; by: string; trust?: Trust; overrides?: Overrides };
    reply: Entry;
  };
  "entry.history": { msg: { category: Category; id: string }; reply: EntryHistory };
  /** Erasure of matching entries across both time axes; the actor is then restarted to compact. */
  "memory.erase": { msg: { request: EraseRequest; by: string }; reply: EraseReport };
  /** A batch of one category: all prepared before any is written, then one transaction. */
  "entry.createMany": {
    msg: {
      drafts: EntryDraft[];
      createdBy: string;
      vectors: Array<Float32Array | undefined>;
      idempotencyKey?: string;
      within?: ScopeFilter["within"];
      provenance?: Provenance;
      overrides?: Overrides;
    };
    /** `replayed`: the stored first answer to an Idempotency-Key used before. */
    reply: { status: 200 | 201; entries: Entry[]; statuses: Array<200 | 201>; replayed?: true };
  };
  "entry.create": {
    msg: CreateEntry;
    /** `merged_into`/`review`: what `dedupe: "merge"` did (actors/tenant/merges/merge-write.ts). */
    reply: {
      status: 200 | 201;
      entry: Entry;
      similar?: SimilarEntry[];
      replayed?: true;
      merged_into?: string;
      review?: string;
    };
  };
  "entry.get": { msg: { category: Category; id: string; includeEmbedding: boolean }; reply: Entry };
  "entry.list": { msg: ListEntries; reply: { items: Entry[]; next_cursor: string | null } };
  /** `pending_vectors`: entries not found by vector yet (the background embedder's backlog), if any. */
  "memory.search": { msg: SearchEntries; reply: { results: SearchResult[]; pending_vectors?: number } };
  /** What the tenant knows about an entity (actors/tenant/entities/); NotFound when nothing readable. */
  "entity.read": { msg: EntityRead; reply: EntityAnswer };
  /** Vectors the background embedder made for entries of this tenant's backlog: stored, then indexed. */
  "embed.store": {
    msg: { items: Array<{ seq: number; id: string }>; vectors: Float32Array[] };
    reply: undefined;
  };
  /** Moves a chunk of pending vectors into the ANN graph (`all`: every one, e.g. before a benchmark). */
  "index.flush": { msg: { all?: boolean }; reply: undefined };
  "webhook.ingest": { msg: { delivery: Delivery }; reply: IngestReply };
  /** Whether the event was taken already, is held (its source paused), or is new: asked before an expansion. */
  "webhook.seen": { msg: { source: string; eventId: string }; reply: "new" | "seen" | "held" };
  "deadletter.list": { msg: { status?: DeadLetter["status"]; limit: number }; reply: DeadLetter[] };
  /** The dead letter a replay maps again: unknown 404, discarded 409 (checked again by `deadletter.resolve`). */
  "deadletter.get": { msg: { eventId: string; source?: string }; reply: DeadLetter };
  "deadletter.resolve": {
    msg: { eventId: string; source: string; item: IngestItem; requestId?: string | null };
    reply: { event_id: string; status: "replayed" | "dead"; entries?: string[]; last_error?: string };
  };
  "connector.state.get": { msg: { key: string }; reply: unknown };
  "connector.state.put": { msg: { key: string; value: unknown }; reply: undefined };
} & OutboundTenantProtocol &
  ConversationTenantProtocol &
  MergeTenantProtocol &
  TenantTransferProtocol &
  WebhookOpsProtocol;
