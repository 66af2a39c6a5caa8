/**
 * Where an entry came from (`origin`) and how far a reader may rely on it (`trust`): both stamped by
 * the runtime on every write, never taken from a body (docs/trust-and-provenance.md). The ladder,
 * lowest first, is `TRUST_LEVELS`; `src/provenance/` derives an origin's trust and checks the rules.
 */
import { type Static, Type } from "@sinclair/typebox";
import { Chars } from "./chars.ts";
import { LiteralUnion, StrictObject } from "./common.ts";
import { named } from "./schema-name.ts";

/** The trust ladder, lowest first: a level outranks every level before it. */
export const TRUST_LEVELS = ["unverified", "extracted", "agent", "operator", "verified"] as const;
export type Trust = (typeof TRUST_LEVELS)[number];

export const TrustLevel = named(
  "Trust",
  LiteralUnion(TRUST_LEVELS, {
    description:
      "How far the entry's origin is vouched for, highest first: verified (a platform signature the runtime checked), operator (the tenant's administrator, or the operator's own in-process bridge), agent (an agent token's own statement), extracted (rewritten from other entries: at most the lowest of those), unverified (relayed third-party text)",
  }),
);

const Hex64 = Type.String({ pattern: "^[0-9a-f]{64}$" });

/** A platform event whose delivery the runtime verified (SOURCES.md's scheme of that source). */
export const SourceOrigin = StrictObject({
  kind: Type.Literal("source"),
  source: Chars(1, 64, { description: "The source id (`crm`, `payments`, …)" }),
  scheme: Chars(1, 128, { description: "How the delivery was verified (docs/webhooks.md)" }),
  delivery_id: Type.Union([Chars(1, 256), Type.Null()], {
    description: "The X-Request-Id of the delivery that carried the event; null when it came otherwise",
  }),
  event_id: Chars(1, 512),
  payload_sha256: { ...Hex64, description: "SHA-256 (hex) of what `digest_of` names" },
  digest_of: LiteralUnion(["raw_body", "event"] as const, {
    description:
      "`raw_body`: the delivery's bytes the signature covers; `event`: the event as kept (its JSON), where the bytes are not (streams, replays)",
  }),
});

/** The tenant's administrator: a token holding the built-in `tenant_admin` role. */
export const OperatorOrigin = StrictObject({ kind: Type.Literal("operator"), sub: Chars(1, 256) });
/** Any other token: an agent's own statement. */
export const AgentOrigin = StrictObject({ kind: Type.Literal("agent"), sub: Chars(1, 256) });
/** The in-process messaging bridge (SOURCES.md, "The messaging bridge"). */
export const BridgeOrigin = StrictObject({
  kind: Type.Literal("bridge"),
  source: Chars(1, 64),
  event_id: Chars(1, 512),
});
/** Made from other entries' content by an extractor or a model, named in `by`. */
export const ExtractedOrigin = StrictObject({
  kind: Type.Literal("extracted"),
  by: Chars(1, 128, { description: "The extractor or the model, by name" }),
  from: Type.Array(Chars(1, 128), {
    maxItems: 1000,
    description: "What it was made from: entry ids, or the ids of the conversation turns",
  }),
});
/** Written before origins were stamped: derived on read from what the record tells. */
export const LegacyOrigin = StrictObject({
  kind: Type.Literal("legacy"),
  created_by: Type.String(),
  source: Type.Optional(Type.String({ description: "`source.system` of an entry a connector wrote" })),
});

export const Origin = named(
  "Origin",
  Type.Union([SourceOrigin, OperatorOrigin, AgentOrigin, BridgeOrigin, ExtractedOrigin, LegacyOrigin], {
    description: "What wrote the entry, stamped by the runtime (never by a body); kept by an import",
  }),
);
export type Origin = Static<typeof Origin>;
export type SourceOrigin = Static<typeof SourceOrigin>;

/** An entry's origin with the trust derived from it: what a write carries into the tenant actor. */
export interface Provenance {
  origin: Origin;
  trust: Trust;
}

/** `min_trust` of a list or a search: only entries of this trust or higher. */
export const MinTrust = LiteralUnion(TRUST_LEVELS, {
  description:
    "Only entries whose trust is this level or higher (unverified < extracted < agent < operator < verified)",
});
