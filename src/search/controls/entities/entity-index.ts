/**
 * A tenant's entity index (docs/entities.md): each entity's entries, each entry's entities, and the
 * relationship edges between entities (a relationship entry's `subject` → `object`). Co-mention
 * edges are not stored: two entities are co-mentioned by the entries they share, read from the
 * two maps. An entity counts (`known`) once at least one of its mentions is strong (recognise.ts):
 * a capitalised word seen only at sentence starts is no name. In memory only: the actor builds it
 * from the vault and keeps it current with each write (actors/tenant/memory/entity-store.ts).
 */
import type { Entry } from "../../../models/entry.ts";
import { entryMentions, entryObject } from "./entry-mentions.ts";
import { type EntityKind, entityKey, type Mention, mentionsIn, namesIn } from "./recognise.ts";

interface EntityRecord {
  name: string;
  kind: EntityKind;
  /** Strong mentions: the entity is known while there is one. */
  strong: number;
  /** In the order indexed; an array, not a set: a million memberships cost a third as much. */
  entries: string[];
}

export interface RelationEdge {
  /** The relationship entry. */
  id: string;
  subject: string;
  predicate: string;
  object: string;
}

/**
 * An entry's keys, its strong ones first, as one string: the count of strong ones as its first
 * character, then the keys, each after a newline (keys hold none: entityKey makes spaces single).
 * One string an entry, as a million of them are kept (an object and an array cost twice as much).
 */
type EntryMentions = string;

function packed(keys: readonly string[], strong: number): EntryMentions {
  return String.fromCharCode(strong) + keys.map((key) => `\n${key}`).join("");
}

function unpacked(mentions: EntryMentions): { keys: string[]; strong: number } {
  return { keys: mentions.split("\n").slice(1), strong: mentions.charCodeAt(0) };
}

/** Query n-grams looked up as entity keys: a query without capitals still names what it asks of. */
const MAX_QUERY_NGRAM = 4;

export class EntityIndex {
  private readonly byKey = new Map<string, EntityRecord>();
  private readonly ofEntry = new Map<string, EntryMentions>();
  private readonly relations = new Map<string, RelationEdge[]>();
  private readonly objects = new Map<string, string>();

  /** Entries indexed. */
  get size(): number {
    return this.ofEntry.size;
  }

  /** Indexes an entry's mentions (an entry indexed already is left as it is). */
  add(entry: Entry): void {
    if (this.ofEntry.has(entry.id)) return;
    const mentions = entryMentions(entry);
    const strong = mentions.filter((m) => m.strong);
    const keys = [...strong, ...mentions.filter((m) => !m.strong)].map((m) => m.key);
    this.ofEntry.set(entry.id, packed(keys, strong.length));
    for (const m of mentions) this.mention(entry.id, m);
    const object = entryObject(entry);
    if (object) this.objects.set(entry.id, object);
    if (entry.category === "relationship" && entry.subject && entry.object) {
      const edge = {
        id: entry.id,
        subject: entityKey(entry.subject),
        predicate: entry.predicate ?? "",
        object: entityKey(entry.object),
      };
      for (const key of new Set([edge.subject, edge.object])) this.relationsOf(key, true)!.push(edge);
    }
  }

  /** An entry leaves the index (erased). */
  remove(id: string): void {
    const stored = this.ofEntry.get(id);
    if (stored === undefined) return;
    const mentions = unpacked(stored);
    this.ofEntry.delete(id);
    this.objects.delete(id);
    mentions.keys.forEach((key, i) => {
      const record = this.byKey.get(key);
      if (!record) return;
      // Erasures are rare: a scan of the entity's entries is fine there.
      const at = record.entries.indexOf(id);
      if (at >= 0) record.entries.splice(at, 1);
      if (i < mentions.strong) record.strong--;
      if (record.entries.length === 0) this.byKey.delete(key);
    });
    for (const key of mentions.keys) {
      const edges = this.relations.get(key)?.filter((e) => e.id !== id);
      if (edges?.length) this.relations.set(key, edges);
      else this.relations.delete(key);
    }
  }

  /** Whether the key names a known entity (one strong mention at least). */
  known(key: string): boolean {
    return (this.byKey.get(key)?.strong ?? 0) > 0;
  }

  /** A known entity's name (as last written strongly) and kind. */
  describe(key: string): { key: string; name: string; kind: EntityKind } | undefined {
    const record = this.byKey.get(key);
    return record && record.strong > 0 ? { key, name: record.name, kind: record.kind } : undefined;
  }

  /** The entries mentioning a key, in the order they were indexed (none for an unknown key). */
  entriesOf(key: string): readonly string[] {
    return this.known(key) ? this.byKey.get(key)!.entries : EMPTY;
  }

  /** How many entries mention a key. */
  frequency(key: string): number {
    return this.known(key) ? this.byKey.get(key)!.entries.length : 0;
  }

  /** The known entities an entry mentions. */
  entitiesOf(id: string): string[] {
    const stored = this.ofEntry.get(id);
    return stored === undefined ? [] : unpacked(stored).keys.filter((key) => this.known(key));
  }

  /**
   * The source object an entry is about: the source-qualified identifier of the container its
   * `data` names (`payments:cus_…`, `helpdesk:4821`; entry-mentions.ts `entryObject`), if any.
   */
  objectOf(id: string): string | undefined {
    return this.objects.get(id);
  }

  /** Relationship edges with the key as subject or object. */
  relationsOf(key: string, create = false): RelationEdge[] | undefined {
    const edges = this.relations.get(key);
    if (edges || !create) return edges;
    const fresh: RelationEdge[] = [];
    this.relations.set(key, fresh);
    return fresh;
  }

  /**
   * The known entities a query names: its identifiers and capitalised runs (a sentence's start
   * counts here: "Acme's invoices?"), their parts, and its word n-grams that are entity keys.
   */
  ofQuery(text: string): string[] {
    const keys = new Set<string>();
    const consider = (m: Mention) => this.known(m.key) && keys.add(m.key);
    for (const m of mentionsIn(text)) consider(m);
    for (const m of namesIn(text, { parts: true })) consider(m);
    const words =
      text.match(/[\p{L}\p{M}\p{N}@._%+#-]+/gu)?.map((w) => entityKey(w.replace(/['’]s$/u, ""))) ?? [];
    for (let n = MAX_QUERY_NGRAM; n >= 1; n--)
      for (let i = 0; i + n <= words.length; i++) {
        const key = words.slice(i, i + n).join(" ");
        if (this.known(key) && !isCommonQueryWord(key, n)) keys.add(key);
      }
    return [...keys];
  }

  private mention(id: string, m: Mention): void {
    let record = this.byKey.get(m.key);
    if (!record) {
      record = { name: m.text, kind: m.kind, strong: 0, entries: [] };
      this.byKey.set(m.key, record);
    }
    record.entries.push(id);
    if (!m.strong) return;
    record.strong++;
    record.name = m.text;
    if (record.kind === "name") record.kind = m.kind;
  }
}

const EMPTY: readonly string[] = [];

/** A single lower-case query word that is also an entity key is most likely the word ("fig"). */
function isCommonQueryWord(key: string, n: number): boolean {
  return n === 1 && !/[\p{N}@._#-]/u.test(key);
}
