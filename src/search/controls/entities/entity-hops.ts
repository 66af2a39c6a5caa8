/**
 * Entity hops in a ranked search (docs/entities.md): the query's entities pull in the entries
 * linked to them (hop 1), and the rare entities of the best results pull in theirs (hop 2), so a
 * question whose evidence is two entries ("What trick did Soren's husky learn?": the turn naming
 * the husky Noodle, and the one saying what Noodle learnt) can find both. Both hops are bounded
 * (entities too common to say anything are not followed, a fixed number of entries each) and add
 * a small score, weighed by how rare the entity is, to the fused score; the search scores the
 * pulled-in entries on both sides like any candidate (hybrid-search.ts `extra`).
 */
import type { FusedHit } from "../../fusion/hybrid.ts";

/** What the hops read of the entity index (entity-index.ts). */
export interface EntityLinks {
  readonly size: number;
  ofQuery(text: string): string[];
  entriesOf(key: string): readonly string[];
  entitiesOf(id: string): string[];
  frequency(key: string): number;
  /** The source object an entry is about (entity-index.ts `objectOf`), if any. */
  objectOf?(id: string): string | undefined;
}

/** How a result is linked to the query: the entities followed, and in how many hops. */
export interface Linked {
  entities: string[];
  hop: 1 | 2;
  boost: number;
}

export interface LinkedHit extends FusedHit {
  linked?: Linked;
}

/** Score added for an entity of the query (times its rarity, summed over the entities, at most 1). */
export const HOP1_BOOST = 0.2;
/** Score added through a bridging entity (times its rarity and the bridging result's share of the best). */
export const HOP2_BOOST = 0.3;
/** An entity in more than this share of the entries (and more than MIN_FOLLOWED) is not followed. */
const MAX_SHARE = 0.1;
const MIN_FOLLOWED = 16;
const MAX_FOLLOWED = 2000;
/** Entries pulled in per entity, and in all per hop (the newest first). */
const PER_ENTITY = 64;
const PER_HOP = 128;
/** A bridge is rarer than a followed entity: in at most this share of the entries (or BRIDGE_MIN_FOLLOWED). */
const BRIDGE_MAX_SHARE = 0.02;
const BRIDGE_MIN_FOLLOWED = 8;
/** A name's key: letters, marks, spaces, apostrophes, `&`, `.` and `-` (no digit, `@`, `#`, `:`, `_`). */
const NAME_KEY = /^[\p{L}\p{M}][\p{L}\p{M} .'’&-]*$/u;
/** Results whose entities bridge, and the share of the best score a bridge must reach. */
const BRIDGES_FROM = 3;
const BRIDGE_MIN_SHARE = 0.5;

/** The query's followed entities, each with its rarity weight, and the entries they link. */
export interface HopOne {
  weights: Map<string, number>;
  /**
   * The objects the query's entities' entries are about (a company's customer id at the payments
   * platform, `payments:cus_…`), each with the weight of the entity it stands for: an entry naming
   * only the object ("Subscription sub_… of customer cus_… is now active") is about the entity too.
   */
  aliases: Map<string, number>;
  candidates: string[];
}

/** Whether an entity is rare enough to follow, and its weight: ln(1 + N/df) / ln(1 + N), in (0, 1]. */
function weightOf(links: EntityLinks, key: string, bridge = false): number | undefined {
  const df = links.frequency(key);
  const n = Math.max(links.size, 1);
  const [share, least] = bridge ? [BRIDGE_MAX_SHARE, BRIDGE_MIN_FOLLOWED] : [MAX_SHARE, MIN_FOLLOWED];
  const ceiling = Math.min(MAX_FOLLOWED, Math.max(least, n * share));
  if (df === 0 || df > ceiling) return undefined;
  return Math.log(1 + n / df) / Math.log(1 + n);
}

/** The newest `max` entries of an entity that pass the filter. */
function linkedEntries(
  links: EntityLinks,
  key: string,
  accept: (id: string) => boolean,
  max: number,
): string[] {
  const all = links.entriesOf(key);
  const kept: string[] = [];
  for (let i = all.length - 1; i >= 0 && kept.length < max; i--) if (accept(all[i]!)) kept.push(all[i]!);
  return kept;
}

/** Hop 1: the query's entities that are followed, and their entries. */
export function hopOne(links: EntityLinks, text: string, accept: (id: string) => boolean): HopOne {
  const weights = new Map<string, number>();
  const candidates = new Set<string>();
  const aliases = new Map<string, number>();
  for (const key of links.ofQuery(text)) {
    const weight = weightOf(links, key);
    if (weight === undefined) continue;
    weights.set(key, weight);
    for (const id of linkedEntries(links, key, accept, PER_ENTITY)) {
      const object = links.objectOf?.(id);
      if (object && weightOf(links, object) !== undefined)
        aliases.set(object, Math.max(aliases.get(object) ?? 0, weight));
      if (candidates.size < PER_HOP) candidates.add(id);
    }
  }
  for (const key of weights.keys()) aliases.delete(key);
  for (const object of aliases.keys())
    for (const id of linkedEntries(links, object, accept, PER_ENTITY)) {
      if (candidates.size >= PER_HOP) break;
      candidates.add(id);
    }
  return { weights, aliases, candidates: [...candidates] };
}

/**
 * Hop 1's score: each result mentioning a query entity gains HOP1_BOOST × its summed rarity; one
 * naming only an object of the entity (an alias) gains as much as the entity would give it.
 */
export function boostHopOne(hits: readonly FusedHit[], links: EntityLinks, one: HopOne): LinkedHit[] {
  if (one.weights.size === 0) return [...hits];
  return sorted(
    hits.map((hit) => {
      const named = links.entitiesOf(hit.id);
      const direct = named.filter((key) => one.weights.has(key));
      const entities = direct.length ? direct : named.filter((key) => one.aliases.has(key)).slice(0, 1);
      if (!entities.length) return hit;
      const rarity = direct.length
        ? Math.min(
            1,
            direct.reduce((sum, key) => sum + one.weights.get(key)!, 0),
          )
        : one.aliases.get(entities[0]!)!;
      const boost = HOP1_BOOST * rarity;
      return { ...hit, score: lifted(hit.score, boost), linked: { entities, hop: 1 as const, boost } };
    }),
  );
}

/** Hop 2's bridges: entry id → the best bridging entity's boost and name, from the best results. */
export function hopTwo(
  links: EntityLinks,
  ranked: readonly LinkedHit[],
  one: HopOne,
  accept: (id: string) => boolean,
): Map<string, { entity: string; boost: number }> {
  const bridged = new Map<string, { entity: string; boost: number }>();
  const best = ranked[0]?.score ?? 0;
  for (const hit of ranked.slice(0, BRIDGES_FROM)) {
    const share = best > 0 ? hit.score / best : 0;
    if (share < BRIDGE_MIN_SHARE) break;
    // A query naming entities bridges from results about them only, not from another's that
    // shares its words (another company's ticket about invoices).
    if (one.weights.size > 0 && !hit.linked) continue;
    for (const key of links.entitiesOf(hit.id)) {
      // Only names bridge: an identifier (`#5047`, `helpdesk:5047`, an e-mail) joins one object's
      // own events, which the question did not ask for.
      if (!NAME_KEY.test(key) || one.weights.has(key) || one.aliases.has(key) || links.frequency(key) < 2)
        continue;
      const weight = weightOf(links, key, true);
      if (weight === undefined) continue;
      const boost = HOP2_BOOST * weight * share;
      for (const id of linkedEntries(links, key, accept, PER_ENTITY)) {
        if (id === hit.id || (bridged.get(id)?.boost ?? 0) >= boost) continue;
        if (bridged.size >= PER_HOP && !bridged.has(id)) break;
        bridged.set(id, { entity: key, boost });
      }
    }
  }
  return bridged;
}

/** Hop 2's score: a bridged result hop 1 did not reach gains its bridge's boost. */
export function boostHopTwo(
  hits: readonly LinkedHit[],
  bridged: Map<string, { entity: string; boost: number }>,
) {
  if (bridged.size === 0) return [...hits];
  return sorted(
    hits.map((hit) => {
      const bridge = bridged.get(hit.id);
      // An entry the query's entities reach already is not lifted again: among the entries about
      // one entity, the best connected (the contact's e-mail in every payment) would outrank the
      // one the question asks for.
      if (!bridge || hit.linked) return hit;
      const linked: Linked = { entities: [bridge.entity], hop: 2, boost: bridge.boost };
      return { ...hit, score: lifted(hit.score, bridge.boost), linked };
    }),
  );
}

/** A score lifted by `boost` of the way to 1: it stays in [0, 1], and the order of equal boosts holds. */
const lifted = (score: number, boost: number) => score + boost * (1 - score);

function sorted(hits: LinkedHit[]): LinkedHit[] {
  return hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * A ranked search with both hops: `run(extra)` is the hybrid search with those ids proposed too.
 * The second hop searches again only when its bridges pull in entries the first did not score.
 */
export function searchWithEntities(
  links: EntityLinks,
  text: string,
  accept: (id: string) => boolean,
  run: (extra: readonly string[]) => FusedHit[],
): LinkedHit[] {
  const one = hopOne(links, text, accept);
  let hits = boostHopOne(run(one.candidates), links, one);
  const bridged = hopTwo(links, hits, one, accept);
  const scored = new Set(hits.map((hit) => hit.id));
  const fresh = [...bridged.keys()].filter((id) => !scored.has(id));
  if (fresh.length) hits = boostHopOne(run([...one.candidates, ...fresh]), links, one);
  return boostHopTwo(hits, bridged);
}
