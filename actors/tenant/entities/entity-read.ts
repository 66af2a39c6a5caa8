import { NotFound } from "../../../src/errors/domain-errors.ts";
import { type TimeFilter, visible } from "../../../src/memory/temporal.ts";
import type { Category } from "../../../src/models/category.ts";
import type { EntityAnswer } from "../../../src/models/entities.ts";
import type { Entry } from "../../../src/models/entry.ts";
import { inScope } from "../../../src/models/scope.ts";
import type { EntityRead } from "../../../src/protocols/tenant-protocol.ts";
import type { EntityIndex } from "../../../src/search/controls/entities/entity-index.ts";
import { entityKey } from "../../../src/search/controls/entities/recognise.ts";
import type { EntryStore } from "../memory/entry-store.ts";

/** The newest entries of an entity read for one answer: an entity of a million entries stays cheap. */
const MAX_READ = 5000;
/** Related entities listed. */
const MAX_RELATED = 10;

/**
 * What the tenant knows about an entity (docs/entities.md): its relationships both ways and the
 * entries mentioning it per category, each as seen at `validAt` / `asOf`, current first (latest
 * valid_from, then latest recorded), `limit` of each; and the entities those entries also name.
 * Only entries of the categories the caller may read are read at all: an entity only such entries
 * mention, or none visible at that time, is unknown (404), so its existence does not leak.
 */
export function readEntity(index: EntityIndex, entries: EntryStore, msg: EntityRead): EntityAnswer {
  const key = entityKey(msg.name);
  const entity = index.describe(key);
  const unknown = () =>
    new NotFound(`no entity named ${JSON.stringify(msg.name)} in this tenant's readable memory`);
  if (!entity) throw unknown();
  const allowed = new Set<Category>(msg.categories);
  const time: TimeFilter = { asOf: msg.asOf, validAt: msg.validAt };
  const seen = (id: string): Entry | undefined => {
    const stored = entries.get(id);
    if (!stored || !allowed.has(stored.entry.category)) return undefined;
    return msg.scope && !inScope(stored.entry, msg.scope) ? undefined : visible(stored, time);
  };
  const relationships = relationshipsOf(index, key, seen);
  const shown = new Set(relationships.map((r) => r.entry.id));
  const ids = index.entriesOf(key).slice(-MAX_READ);
  const views = ids.map(seen).filter((e): e is Entry => e !== undefined && !shown.has(e.id));
  if (views.length === 0 && relationships.length === 0) throw unknown();
  views.sort(currentFirst);
  const grouped: Record<string, Entry[]> = {};
  let truncated = relationships.length > msg.limit || ids.length < index.entriesOf(key).length;
  for (const entry of views) {
    const list = grouped[entry.category] ?? [];
    grouped[entry.category] = list;
    if (list.length < msg.limit) list.push(entry);
    else truncated = true;
  }
  return {
    entity,
    relationships: relationships.slice(0, msg.limit),
    entries: grouped,
    related: relatedOf(index, key, [...views, ...relationships.map((r) => r.entry)]),
    truncated,
  };
}

function relationshipsOf(index: EntityIndex, key: string, seen: (id: string) => Entry | undefined) {
  const out: EntityAnswer["relationships"] = [];
  for (const edge of index.relationsOf(key) ?? []) {
    const entry = seen(edge.id);
    if (!entry || entry.subject === undefined || entry.object === undefined) continue;
    const outgoing = edge.subject === key;
    out.push({
      direction: outgoing ? "outgoing" : "incoming",
      predicate: edge.predicate,
      other: outgoing ? entry.object : entry.subject,
      entry,
    });
  }
  return out.sort((a, b) => currentFirst(a.entry, b.entry));
}

/** The known entities the visible entries also mention, by how many of them do. */
function relatedOf(index: EntityIndex, key: string, views: readonly Entry[]): EntityAnswer["related"] {
  const counts = new Map<string, number>();
  for (const entry of views)
    for (const other of index.entitiesOf(entry.id))
      if (other !== key) counts.set(other, (counts.get(other) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_RELATED)
    .flatMap(([other, n]) => {
      const described = index.describe(other);
      return described ? [{ ...described, entries: n }] : [];
    });
}

/** Latest valid_from first, then latest recorded, then id: current first, deterministic. */
function currentFirst(a: Entry, b: Entry): number {
  return (
    b.valid_from.localeCompare(a.valid_from) ||
    b.recorded_at.localeCompare(a.recorded_at) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}
