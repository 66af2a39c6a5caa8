/**
 * The entries of each object of a vault written before object timelines (timeline-upgrade.ts).
 * Such entries do not record their object: the objects index names only an object's latest entry
 * and latest decision, so a state a reordered delivery orphaned (a newer stage left valid when a
 * late one took the pointer) is found by what it carries. An entry belongs to object
 * `<source>:<type>:<id>` when it is of that source, carries the object's id in a `data` field in
 * which the indexed entries carry it (a deal's `object_id`, a ticket's `ticket_id`), and shares a
 * tag with them other than the source's (`deal`, not `contact`, for a deal and a contact of one id).
 * One scan of all the tenant's entries, at the pass only.
 */
import type { StoredEntry } from "../../../src/memory/temporal.ts";
import { live } from "./timeline.ts";

/** An object to rebuild: its key, and the entries the index names for it (its latest, its latest decision). */
export interface Indexed {
  key: string;
  named: StoredEntry[];
}

/** Values of at most this length are looked up (an id, not a description). */
const MAX_ID = 256;

const textOf = (value: unknown) =>
  typeof value === "string" || (typeof value === "number" && Number.isFinite(value))
    ? String(value)
    : undefined;

/** The object's id (the key's last part) and its source (the first). */
function partsOf(key: string): { source: string; id: string } | undefined {
  const first = key.indexOf(":");
  const last = key.lastIndexOf(":");
  if (first < 1 || last === key.length - 1) return undefined;
  return { source: key.slice(0, first), id: key.slice(last + 1) };
}

/** What an entry of the object carries: its source, the fields holding its id, the tags it shares. */
interface Signature {
  key: string;
  source: string;
  id: string;
  fields: Set<string>;
  tags: Set<string>;
}

function signatureOf(object: Indexed): Signature | undefined {
  const parts = partsOf(object.key);
  if (!parts) return undefined;
  const fields = new Set<string>();
  const tags = new Set<string>();
  for (const stored of object.named) {
    if (stored.entry.source?.system !== parts.source) continue;
    for (const [field, value] of Object.entries(stored.entry.data ?? {}))
      if (textOf(value) === parts.id) fields.add(field);
    for (const tag of stored.entry.tags ?? []) if (tag !== parts.source) tags.add(tag);
  }
  return fields.size > 0 && tags.size > 0 ? { key: object.key, ...parts, fields, tags } : undefined;
}

const lookupKey = (source: string, field: string, value: string) => `${source}\u0000${field}\u0000${value}`;

/**
 * Each object's live entries: those the index names, and those the scan finds carrying it.
 * `all` is every committed entry (EntryStore.all), read once.
 */
export function groupsOf(objects: Indexed[], all: Iterable<StoredEntry>): Map<string, StoredEntry[]> {
  const groups = new Map<string, Map<string, StoredEntry>>();
  const byValue = new Map<string, Signature[]>();
  for (const object of objects) {
    groups.set(object.key, new Map(object.named.filter(live).map((s) => [s.entry.id, s])));
    const signature = signatureOf(object);
    if (!signature) continue;
    for (const field of signature.fields) {
      const k = lookupKey(signature.source, field, signature.id);
      byValue.set(k, [...(byValue.get(k) ?? []), signature]);
    }
  }
  if (byValue.size > 0)
    for (const stored of all) {
      const { entry } = stored;
      const source = entry.source?.system;
      if (!source || !live(stored)) continue;
      for (const [field, value] of Object.entries(entry.data ?? {})) {
        const v = textOf(value);
        if (v === undefined || v.length > MAX_ID) continue;
        for (const signature of byValue.get(lookupKey(source, field, v)) ?? [])
          if ((entry.tags ?? []).some((tag) => signature.tags.has(tag)))
            groups.get(signature.key)!.set(entry.id, stored);
      }
    }
  return new Map([...groups].map(([key, found]) => [key, [...found.values()]]));
}
