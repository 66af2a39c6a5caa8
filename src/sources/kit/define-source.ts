/**
 * A webhook source as a declaration: its secrets, its verifier (from signature.ts), optional
 * handshakes, how a delivery splits into events, each event's id and type, and a table from event
 * type to category and fields. `defineSource` turns it into a SourceModule; the ingest pipeline
 * does the rest (dedupe, outcome linking, writes, dead letters).
 *
 * Event types missing from the table are `ignored` (counted, not dead-lettered). Each mapping
 * declares the fields it is built from (`required`, see required.ts): an event lacking one, or
 * holding a blank or placeholder value there, is dead-lettered as `missing_field` naming the path
 * before the mapping runs. A mapping may still call `need(...)` for a value only code can compute.
 */
import { BadRequest } from "../../errors/domain-errors.ts";
import type { Category } from "../../models/category.ts";
import type { EntryDraft } from "../../models/entry.ts";
import type {
  IngestDraft,
  Lifecycle,
  MapResult,
  SourceContext,
  SourceEvent,
  SourceModule,
  WebhookReply,
  WebhookRequest,
} from "../types.ts";
import { clip, finish, isoFrom, sourceOf, tagsOf, text } from "./draft.ts";
import { keyOf, objectKeyOf } from "./object-ref.ts";
import { decodeUtf8, isRecord, parseJsonBody } from "./request.ts";
import { at, MissingField, missingField, type Required, valueText } from "./required.ts";
import { sha256Hex, type Verifier } from "./signature.ts";

export { objectOf, qualifiedObject } from "./object-ref.ts";
export { anyOf, at, freeText, MissingField, need, nonEmpty, type Required } from "./required.ts";

export type Event = Record<string, unknown>;

/**
 * How one event type becomes one entry. Mappings see the event alone (a replay has no request):
 * facts that arrive in headers are put into the event by the source's `events`.
 */
export interface EventMapping {
  category: Category;
  /**
   * The fields the entry is built from (paths into the event): checked before any function below
   * runs, so those may read them as present. Whatever is not listed is optional and is left out of
   * the text cleanly when absent.
   */
  required: readonly Required[];
  /** The text an agent reads. */
  content(ev: Event): string;
  /** The category's typed fields (severity, subject/predicate/object, result/amount/currency, …). */
  fields?(ev: Event): Record<string, unknown>;
  tags?: readonly string[] | ((ev: Event) => unknown[]);
  /** Free-form attributes kept with the entry (bounded to 16 KiB). */
  data?(ev: Event): Record<string, unknown>;
  /**
   * The platform object the event is about (an invoice, an issue): decisions about it become the
   * decision an outcome about it resolves.
   */
  object?(ev: Event): unknown;
  /** When it became true (epoch s or ms, or RFC 3339); default: when it was received. */
  validFrom?(ev: Event): unknown;
  /**
   * What the event does to its `object`, in event time (docs/source-mappings.md, "Lifecycles";
   * applied by the ingest, actors/tenant/ingest/timeline.ts): `state`, a new state ending the one
   * before it; `close`, the end of the object, resolving its open decisions and exceptions.
   */
  lifecycle?: Lifecycle | ((ev: Event) => Lifecycle | undefined);
  /**
   * Other objects the entry belongs to (an escalation's ticket): resolved when they close. An id is
   * an object of this source; `objectOf(source, id)` (kit/object-ref.ts) one of another source.
   */
  links?(ev: Event): unknown[];
  /** Other objects the event ends, as their close (a payment's invoice); named as in `links`. */
  closes?(ev: Event): unknown[];
}

export interface SourceDefinition {
  id: string;
  secrets: readonly string[];
  optionalSecrets?: readonly string[];
  verify: Verifier;
  /** Answered before verification (only for a handshake the platform does not sign). */
  challenge?(req: WebhookRequest, ctx: SourceContext): WebhookReply | undefined;
  /** Answered after verification, with nothing written. `body` is the parsed body. */
  handshake?(req: WebhookRequest, body: unknown, ctx: SourceContext): WebhookReply | undefined;
  /** How the body is read: JSON (default), form-encoded, or JSON that may be absent. */
  body?: "json" | "form" | "optional-json";
  /**
   * The events of one delivery; default: the body itself, or the items of a JSON array. Header
   * facts a mapping needs (a topic, a shop) are added to each event here.
   */
  events?(body: unknown, req: WebhookRequest): unknown[];
  /** The platform's own event or delivery id; without one, the event's content hash. */
  eventId(ev: Event, req: WebhookRequest): unknown;
  /** The event type, as stored with the entry (`source.event_type`). */
  eventType(ev: Event, req: WebhookRequest): unknown;
  /** The table row of an event type, where the table is keyed by a class of types (`*.failed`); default: the type. */
  row?(eventType: string): string | undefined;
  /** Checks on the events only the body carries (Graph's clientState): throw Unauthorized. */
  authorize?(events: Event[], ctx: SourceContext): void;
  /**
   * Event fields that are credentials (Graph's clientState): `authorize` checks them, then they are
   * dropped from the event, so no stored payload (a dead letter, an export) ever holds them.
   */
  credentialFields?: readonly string[];
  mappings: Readonly<Record<string, EventMapping>>;
}

/** A delivery carries at most this many events: bounds the work one request can cause. */
const MAX_EVENTS = 1000;

/** A field of the event as text (trimmed), or undefined when it holds no value (kit/required.ts). */
export function textAt(ev: unknown, path: string): string | undefined {
  return valueText(at(ev, path));
}

/** A JSON reply (handshakes). */
export function jsonReply(body: unknown, status = 200): WebhookReply {
  return { status, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
}

/** The summary of a delivery that wrote nothing (a handshake the source answers with 200). */
export const NOTHING_WRITTEN = { accepted: 0, entries: [], duplicates: 0, dead_lettered: [], ignored: 0 };

/** A declared source: a module, with its table kept readable (docs and tests list what each type needs). */
export interface DefinedSource extends SourceModule {
  readonly mappings: Readonly<Record<string, EventMapping>>;
}

export function defineSource(def: SourceDefinition): DefinedSource {
  const bodies = new WeakMap<WebhookRequest, unknown>();
  /** The parsed body, read once per request (parse and handshake both need it). */
  const bodyOf = (req: WebhookRequest): unknown => {
    if (!bodies.has(req)) bodies.set(req, readBody(req, def.body ?? "json"));
    return bodies.get(req);
  };
  return {
    id: def.id,
    requiredSecrets: def.secrets,
    optionalSecrets: def.optionalSecrets ?? [],
    challenge: def.challenge,
    verify: def.verify,
    parse(req, ctx) {
      const events = eventsOf(def, bodyOf(req), req);
      def.authorize?.(events, ctx);
      return events.map((ev, i) => sourceEvent(def, withoutCredentials(def, ev), req, i));
    },
    handshake: def.handshake ? (req, ctx) => def.handshake?.(req, bodyOf(req), ctx) : undefined,
    map: (event) => mapEvent(def, event),
    mappings: def.mappings,
  };
}

function readBody(req: WebhookRequest, kind: "json" | "form" | "optional-json"): unknown {
  checkContentType(req, kind === "form" ? FORM : JSON_TYPES);
  if (kind === "form") {
    const text = decodeUtf8(req.rawBody);
    if (text.trim() === "") throw new BadRequest("body is empty; form parameters expected");
    return Object.fromEntries(new URLSearchParams(text));
  }
  if (kind === "optional-json" && decodeUtf8(req.rawBody).trim() === "") return undefined;
  return parseJsonBody(req.rawBody);
}

const FORM = /^application\/x-www-form-urlencoded$/;
const JSON_TYPES = /^(application\/json|application\/[\w.+-]+\+json|text\/plain)$/;

/**
 * A body declared as another media type than the platform sends (XML to a JSON source, JSON to a
 * form source) is refused rather than read as something it is not. An absent Content-Type is taken
 * at its word: the body then has to parse.
 */
function checkContentType(req: WebhookRequest, expected: RegExp): void {
  const declared = req.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (declared && !expected.test(declared))
    throw new BadRequest(`Content-Type ${declared.slice(0, 64)} is not what this source sends`);
}

function eventsOf(def: SourceDefinition, body: unknown, req: WebhookRequest): Event[] {
  const list = def.events ? def.events(body, req) : Array.isArray(body) ? body : [body];
  if (list.length > MAX_EVENTS) throw new BadRequest(`a delivery carries at most ${MAX_EVENTS} events`);
  return list.map((ev, i) => {
    if (!isRecord(ev)) throw new BadRequest(`event ${i} is not an object`);
    return ev;
  });
}

/** The event without its credential fields (checked already): what is kept is safe to show. */
function withoutCredentials(def: SourceDefinition, ev: Event): Event {
  const fields = def.credentialFields ?? [];
  if (!fields.some((field) => Object.hasOwn(ev, field))) return ev;
  return Object.fromEntries(Object.entries(ev).filter(([key]) => !fields.includes(key)));
}

/**
 * The dedupe id: the platform's own id when it gives one (ids are clipped to 512 characters),
 * else a hash of the event's bytes, so an identical redelivery still dedupes.
 */
function sourceEvent(def: SourceDefinition, ev: Event, req: WebhookRequest, index: number): SourceEvent {
  const type = text(def.eventType(ev, req)) ?? "unknown";
  const id = text(def.eventId(ev, req));
  const eventId = id ?? `${type}:${sha256Hex(JSON.stringify(ev) ?? "", String(index)).slice(0, 32)}`;
  return { event_id: clip(eventId, 512), event_type: clip(type, 128), payload: ev };
}

function mapEvent(def: SourceDefinition, event: SourceEvent): MapResult {
  const row = def.row ? def.row(event.event_type) : event.event_type;
  // Own rows only: an event type such as "constructor" must not find Object.prototype's.
  const mapping = row !== undefined && Object.hasOwn(def.mappings, row) ? def.mappings[row] : undefined;
  if (!mapping) return { ok: true, drafts: [], ignored: true };
  const ev = isRecord(event.payload) ? event.payload : {};
  const missing = missingField(ev, mapping.required);
  if (missing !== undefined) return { ok: false, reason: "missing_field", detail: missing };
  try {
    return { ok: true, drafts: [draftOf(def.id, mapping, ev, event)] };
  } catch (error) {
    if (error instanceof MissingField) return { ok: false, reason: "missing_field", detail: error.message };
    throw error;
  }
}

function draftOf(sourceId: string, mapping: EventMapping, ev: Event, event: SourceEvent): IngestDraft {
  const tags = typeof mapping.tags === "function" ? mapping.tags(ev) : (mapping.tags ?? []);
  const object = text(mapping.object?.(ev));
  const draft = finish({
    category: mapping.category,
    content: mapping.content(ev),
    ...mapping.fields?.(ev),
    tags: tagsOf(sourceId, ...tags),
    data: mapping.data?.(ev),
    valid_from: mapping.validFrom ? isoFrom(mapping.validFrom(ev)) : undefined,
    source: sourceOf(sourceId, event),
  } as EntryDraft);
  const lifecycle = typeof mapping.lifecycle === "function" ? mapping.lifecycle(ev) : mapping.lifecycle;
  const placing = {
    ...keysOf(sourceId, "links", mapping.links?.(ev)),
    ...keysOf(sourceId, "closes", mapping.closes?.(ev)),
  };
  if (!object) return { draft, ...placing };
  const objectKey = keyOf(sourceId, object);
  if (mapping.category !== "outcome") return { draft, object_key: objectKey, lifecycle, ...placing };
  // An outcome resolves its object's decision; one that ends the object is on its timeline too.
  const placed = lifecycle ? { object_key: objectKey, lifecycle } : {};
  return { draft, outcome_of: objectKey, ...placed, ...placing };
}

/** A mapping's `links` or `closes` as object keys, of the source or another (none: the field left out). */
function keysOf(sourceId: string, field: "links" | "closes", objects: unknown[] | undefined) {
  const keys = (objects ?? []).map((o) => objectKeyOf(sourceId, o)).filter((k) => k !== undefined);
  return keys.length > 0 ? { [field]: keys } : {};
}
