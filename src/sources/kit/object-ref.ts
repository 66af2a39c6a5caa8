/**
 * Objects of another source (docs/source-mappings.md, "Lifecycles"): a mapping's `links` and
 * `closes` name objects of its own source by their id, and an object of another source by
 * `objectOf(source, object)`, which the ingest's timelines key as that source keys it (an
 * escalation of `standard` naming helpdesk's `ticket:123` is on the ticket's timeline, and is
 * resolved when helpdesk's solve closes it). A payload that names such an object in words gives
 * its fully qualified key, `<source>:<object>` (`helpdesk:ticket:123`), read by `qualifiedObject`.
 */
import { clip, text } from "./draft.ts";

/** An object of `source`, as that source's mapping names it (`ticket:123`). */
export class ObjectOfSource {
  constructor(
    readonly source: string,
    readonly object: string,
  ) {}
}

/** A source id as the registry spells them (`helpdesk`, `marketing_crm`). */
const SOURCE_ID = /^[a-z][a-z0-9_]{0,63}$/;

export function objectOf(source: string, object: unknown): ObjectOfSource | undefined {
  const id = text(object);
  return id && SOURCE_ID.test(source) ? new ObjectOfSource(source, id) : undefined;
}

/** A fully qualified object key (`helpdesk:ticket:123`) as another source's object; otherwise undefined. */
export function qualifiedObject(value: unknown): ObjectOfSource | undefined {
  const key = text(value);
  const colon = key?.indexOf(":") ?? -1;
  if (!key || colon < 1) return undefined;
  return objectOf(key.slice(0, colon), key.slice(colon + 1));
}

/** The object key of an object a mapping names: its own source's, unless it names another one. */
export function objectKeyOf(sourceId: string, object: unknown): string | undefined {
  if (object instanceof ObjectOfSource) return keyOf(object.source, object.object);
  const id = text(object);
  return id === undefined ? undefined : keyOf(sourceId, id);
}

/** The objects index's key of a source's object (actors/tenant/ingest/timeline.ts). */
export function keyOf(sourceId: string, object: string): string {
  return `${sourceId}:${clip(object, 256)}`;
}
