/**
 * The contract between a webhook source module and the ingestion code (CONTRACT §7, SOURCES.md).
 * Modules are pure apart from `verify` (mail fetches keys): they know nothing of HTTP routing,
 * tenants' storage or the environment; everything they need arrives in a SourceContext.
 */
import type { JWTVerifyGetKey } from "jose";
import type { EntryDraft } from "../models/entry.ts";
import type { CrmMapping } from "./crm/mapping.ts";

export type { CrmMapping };

export interface WebhookRequest {
  method: string;
  /** The full URL as received (before any proxy rewriting is undone). */
  url: string;
  headers: Headers;
  rawBody: Uint8Array;
}

/** Verifies RS256 tokens against a (cached, remote) JSON Web Key Set. */
export interface JwksResolver {
  url: string;
  keyFor: JWTVerifyGetKey;
}

export interface SourceContext {
  tenantId: string;
  /** Base variable name WITHOUT the `_{TENANT_ID}` suffix → value. */
  secrets: Readonly<Record<string, string>>;
  /** Epoch ms from the injected clock. */
  now(): number;
  /** The validated custom mapping file (crm only). */
  crmMapping?: CrmMapping;
  /** mail only: where the push tokens' signing keys come from. */
  jwks?: JwksResolver;
}

export interface SourceEvent {
  event_id: string;
  event_type: string;
  payload: unknown;
}

/**
 * One event's mapped drafts. object_key names the source object (e.g. "crm:Case:500xx") so the
 * tenant can link entries of one object: supersede_previous asks the tenant to make this entry
 * supersede the latest entry written for that object_key. An outcome draft with `outcome_of`
 * resolves the latest decision written for that object key; without one it is written as a fact
 * tagged `outcome` (SOURCES.md, the eighteen other sources).
 */
export type Lifecycle = "state" | "close";

export interface IngestDraft {
  draft: EntryDraft;
  object_key?: string;
  /** The same as `lifecycle: "state"` (the earlier name). */
  supersede_previous?: boolean;
  /**
   * What the entry does to its object (docs/source-mappings.md, "Lifecycles"), in the platform's
   * event time whatever the arrival order: `state` is the object's state from its valid_from,
   * ending the state before it and ended by the one after; `close` ends the object (its state
   * gets its valid_to, its open decisions and exceptions, and those linked to it, are resolved).
   */
  lifecycle?: Lifecycle;
  /** Other objects (object keys) the entry belongs to: it is resolved when one of them closes. */
  links?: string[];
  /** Other objects (object keys) the entry ends, as their close (a payment closes its invoice). */
  closes?: string[];
  outcome_of?: string;
  /**
   * The event id (same source) of a message this decision promotes (the messaging bridge's ✅):
   * the tenant fills in the message's content, or dead-letters the event while it is unknown.
   */
  promotes?: string;
}

/**
 * A part of an event split off it because it lacks what its entry needs (a message of a mail
 * notification without a sender): dead-lettered under its own id, the rest of the event written.
 */
export interface RejectedEvent {
  event: SourceEvent;
  reason: string;
  detail?: string;
}

/**
 * What an event becomes: drafts; `ignored` (a type the source's table does not cover: counted,
 * neither written nor dead-lettered); `expand` (the source's connector turns it into drafts, see
 * SourceModule.expandsVia); or a failure that dead-letters it. An expansion may also reject some
 * of what it found (`rejected`), each kept as a dead letter of its own.
 */
export type MapResult =
  | { ok: true; drafts: IngestDraft[]; ignored?: true; expand?: true; rejected?: RejectedEvent[] }
  | { ok: false; reason: string /* snake_case, e.g. "unmapped_event" */; detail?: string };

/** An answer a source gives in place of the ingestion summary (SOAP ack, handshake echo). */
export interface WebhookReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type VerifyResult = { ok: true } | { ok: false; reason: string };

export interface SourceModule {
  /** The source identifier of the webhook path (SPEC: 22 of them). */
  id: string;
  /** Base names; missing ones → 503 naming "<NAME>_<TENANT_ID>". */
  requiredSecrets: readonly string[];
  optionalSecrets: readonly string[];
  /** Answered before verification: a platform handshake that carries no signature (Graph's validationToken). */
  challenge?(req: WebhookRequest, ctx: SourceContext): WebhookReply | undefined;
  verify(req: WebhookRequest, ctx: SourceContext): VerifyResult | Promise<VerifyResult>;
  /** Throws BadRequest (400) if unparseable; Unauthorized (401) for auth facts found only in the body. */
  parse(req: WebhookRequest, ctx: SourceContext): SourceEvent[];
  /** Answered after verification instead of ingesting: ping, url_validation, sync. Nothing is written. */
  handshake?(req: WebhookRequest, ctx: SourceContext): WebhookReply | undefined;
  /** Pure; entries get source: {system: id, event_id, event_type}. */
  map(event: SourceEvent, ctx: SourceContext): MapResult;
  /** Events this source's connector expands into drafts (mail): `map` answers `expand` for them. */
  expandsVia?: string;
  /** The answer to an accepted delivery, when not the JSON summary (crm: the SOAP ack). */
  respond?(summary: object): WebhookReply;
}
