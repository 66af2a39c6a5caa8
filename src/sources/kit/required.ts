/**
 * Required fields (CONTRACT §7): a mapping never writes an entry from empty or placeholder values.
 * Each mapping declares the payload fields its content and typed fields are built from; an event
 * lacking one is dead-lettered as `missing_field` naming the field's path, before the mapping runs.
 *
 * A path is dotted from the event as the source keeps it (the dead letter's `payload`); digits
 * index arrays (`items.data.0.price.id`). A rule is one path, `anyOf(...)` (any one of several will
 * do: `userId` or `anonymousId`), `freeText(...)` for what a person wrote (a message body: there
 * only blank counts as empty, since "?" or "-" is a message someone can send), or `nonEmpty(...)`
 * for a record or list that must hold some value (a generic event's `data`).
 */
import { isRecord } from "./request.ts";

/**
 * Values that stand for "no value" when a platform fills a field it does not know (compared trimmed
 * and case-insensitively). Kept small on purpose: words that can be real values stay real.
 */
export const PLACEHOLDERS: readonly string[] = ["?", "-", "n/a", "null", "undefined", "unknown"];

export interface FieldRule {
  /** Alternatives: the rule holds when any one of them holds what it asks for. */
  readonly anyOf: readonly string[];
  /**
   * What it asks for: a value (default); `text` a person wrote, present when not blank
   * (placeholders are real text there); `contents`, a record or list holding some value.
   */
  readonly kind?: "text" | "contents";
}

/** A path, or a rule over several. */
export type Required = string | FieldRule;

export const anyOf = (...paths: string[]): FieldRule => ({ anyOf: paths });
export const freeText = (...paths: string[]): FieldRule => ({ anyOf: paths, kind: "text" });
export const nonEmpty = (...paths: string[]): FieldRule => ({ anyOf: paths, kind: "contents" });

/** `a.b.0.c` of a parsed body (digits index arrays), or undefined; never throws on hostile input. */
export function at(value: unknown, path: string): unknown {
  let node = value;
  for (const key of path.split(".")) {
    if (Array.isArray(node) && /^\d{1,6}$/.test(key)) node = node[Number(key)];
    else if (isRecord(node) && Object.hasOwn(node, key)) node = node[key];
    else return undefined;
  }
  return node;
}

export function isPlaceholder(value: string): boolean {
  return PLACEHOLDERS.includes(value.trim().toLowerCase());
}

/**
 * A value an entry can be built from: text that is neither blank nor a placeholder, a finite
 * number, or a boolean. An object or an array where a value belongs is no value either.
 */
export function isValue(value: unknown): boolean {
  if (typeof value === "string") return value.trim() !== "" && !isPlaceholder(value);
  if (typeof value === "number") return Number.isFinite(value);
  return typeof value === "boolean";
}

/**
 * A value as text (trimmed; a number or boolean written out), or undefined when it is no value: what
 * mappings read fields with, so a placeholder in an optional field is left out like an absent one,
 * and a field `required` lets through always reads as text.
 */
export function valueText(value: unknown): string | undefined {
  if (!isValue(value)) return undefined;
  return typeof value === "string" ? value.trim() : String(value);
}

/** Free text (or a number) that is not blank. */
export function isText(value: unknown): boolean {
  if (typeof value === "string") return value.trim() !== "";
  return typeof value === "number" && Number.isFinite(value);
}

/** A record or list holding a value somewhere inside (parsed bodies are at most 64 levels deep). */
export function hasContents(value: unknown): boolean {
  const items = Array.isArray(value) ? value : isRecord(value) ? Object.values(value) : [];
  return items.some((item) => isValue(item) || hasContents(item));
}

const HOLDS = { text: isText, contents: hasContents } as const;

/** The first rule the event breaks, as the dead letter names it (`data.object.id`), or undefined. */
export function missingField(ev: unknown, rules: readonly Required[] | undefined): string | undefined {
  for (const rule of rules ?? []) {
    const { anyOf: paths, kind } = typeof rule === "string" ? ({ anyOf: [rule] } as FieldRule) : rule;
    const holds = kind ? HOLDS[kind] : isValue;
    if (paths.some((path) => holds(at(ev, path)))) continue;
    return paths.join(" or ");
  }
  return undefined;
}

/** Thrown by a mapping missing what it needs; the event is dead-lettered as `missing_field`. */
export class MissingField extends Error {}

/**
 * A computed value (a name joined from parts, an id parsed from a URI), or a dead letter naming the
 * field it comes from. Declared fields (`required`) are checked before the mapping runs; this is
 * for what only code can tell.
 */
export function need<T>(value: T | undefined | null, field: string): T {
  if (value === undefined || value === null || (typeof value === "string" && !isValue(value)))
    throw new MissingField(field);
  return value;
}
