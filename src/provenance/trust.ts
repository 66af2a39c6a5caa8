/**
 * The trust ladder's arithmetic and the trust each origin stands for (docs/trust-and-provenance.md).
 * Trust never rises through derivation: an entry made from others is at most the lowest of them,
 * and at most `extracted` (a rewrite is not what its sources said).
 */
import type { Principal } from "../auth/caller.ts";
import { type Origin, type Provenance, TRUST_LEVELS, type Trust } from "../models/origin.ts";
import { TENANT_ADMIN } from "../models/role.ts";

export function trustRank(trust: Trust): number {
  return TRUST_LEVELS.indexOf(trust);
}

/** Whether `a` is a higher level than `b`. */
export function outranks(a: Trust, b: Trust): boolean {
  return trustRank(a) > trustRank(b);
}

/** Whether `trust` is `min` or higher (the `min_trust` filter). */
export function atLeast(trust: Trust, min: Trust): boolean {
  return trustRank(trust) >= trustRank(min);
}

/** The lowest of the levels; `unverified` for none (nothing vouches for what came from nothing). */
export function lowestTrust(levels: Iterable<Trust>): Trust {
  let lowest: Trust | undefined;
  for (const level of levels) if (lowest === undefined || outranks(lowest, level)) lowest = level;
  return lowest ?? "unverified";
}

/**
 * Who writes through a token: the tenant's administrator (the built-in `tenant_admin` role, or the
 * operator's admin claim) states as the operator; any other token as an agent.
 */
export function callerProvenance(principal: Pick<Principal, "sub" | "roles" | "admin">): Provenance {
  const operator = principal.admin || principal.roles.includes(TENANT_ADMIN);
  return operator
    ? { origin: { kind: "operator", sub: principal.sub }, trust: "operator" }
    : { origin: { kind: "agent", sub: principal.sub }, trust: "agent" };
}

/** What an entry derived from other content is made of: an id and that source's trust. */
export interface DerivationSource {
  id: string;
  trust: Trust;
}

/**
 * The provenance of an entry made from other entries' (or turns') content by `by` (an extractor, a
 * model, a merge): the lowest trust among its sources, and never above `extracted`.
 */
export function derivedOrigin(by: string, sources: readonly DerivationSource[]): Provenance {
  const lowest = lowestTrust(sources.map((s) => s.trust));
  return {
    origin: { kind: "extracted", by, from: [...new Set(sources.map((s) => s.id))] },
    trust: outranks(lowest, "extracted") ? "extracted" : lowest,
  };
}

/**
 * An entry written before origins were stamped: a connector wrote it (`connector:<system>` with that
 * `source.system`) after verifying its delivery, or the bridge did; anything else was a token's,
 * counted as an agent's (which roles it held then is not recorded).
 */
export function legacyProvenance(entry: { created_by: string; source?: { system: string } }): Provenance {
  const system = entry.source?.system;
  const origin: Origin =
    system === undefined
      ? { kind: "legacy", created_by: entry.created_by }
      : { kind: "legacy", created_by: entry.created_by, source: system };
  return { origin, trust: legacyTrust(entry.created_by, system) };
}

function legacyTrust(createdBy: string, system: string | undefined): Trust {
  if (system === undefined || createdBy !== `connector:${system}`) return "agent";
  return system === BRIDGE_SOURCE ? "operator" : "verified";
}

/** The source id of the in-process messaging bridge (SOURCES.md). */
export const BRIDGE_SOURCE = "messaging";

/**
 * The entry as read: one stored before origins were stamped gets its origin derived from the
 * record (no migration pass: the derivation is cheap, and a rewrite of the vault would only store
 * the same answer). Entries carrying their own are returned as they are.
 */
export function withProvenance<E extends { origin?: Origin; trust?: Trust; created_by: string }>(
  entry: E & { source?: { system: string } },
): E {
  if (entry.origin !== undefined && entry.trust !== undefined) return entry;
  return { ...entry, ...legacyProvenance(entry) };
}
