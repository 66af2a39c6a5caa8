/**
 * One mutation of a valid request, for the negative check: a parameter or one field of the body
 * (anywhere in it) made invalid in one way (a wrong type, a number out of range, a string too
 * short or long, a pattern or format missed, a value outside an enum, a required field left out,
 * an unknown property where the schema closes the object, a property it refuses outright (`not: {}`),
 * `null` for an object, too many or too few items, a repeated
 * item where items are unique). Every candidate is checked against the document (Ajv): only a
 * request the document forbids is returned.
 */
import { type RequestModel, validity, wireValue } from "./contract-model.ts";
import type { SchemaValidator } from "./doc-schemas.ts";
import type { Operation } from "./operations.ts";
import { isNever } from "./valid-arbitrary.ts";

type Json = Record<string, unknown>;
type Resolve = (schema: Json) => Json;

export type MutationKind =
  | "type"
  | "range"
  | "length"
  | "pattern"
  | "enum"
  | "required"
  | "extra"
  | "items"
  | "unique";

export interface Mutation {
  kind: MutationKind;
  /** Where: `query limit`, `body /entries/0/content`, … */
  target: string;
  model: RequestModel;
}

interface Candidate {
  kind: MutationKind;
  target: string;
  apply(model: RequestModel): RequestModel;
}

const LONGEST = 100_000;
const MOST_ITEMS = 2_000;
/** Strings that miss most patterns, formats and enums: one of them misses the schema at hand. */
const MISFITS = [
  "",
  "!",
  "a b",
  "~~",
  "ZZZZZZZZ",
  "0",
  "-1",
  "x",
  "not-a-member",
  "2026-02-30T00:00:00Z",
  "1.5",
];

/** One mutation of `valid` the document forbids, chosen with `random`; undefined when none applies. */
export function mutate(
  op: Operation,
  valid: RequestModel,
  validator: SchemaValidator,
  resolve: Resolve,
  random: () => number,
): Mutation | undefined {
  const candidates = [
    ...paramCandidates(op, valid, validator, resolve),
    ...bodyCandidates(op, valid, validator, resolve),
  ];
  // A random order, then the first that the document refuses.
  for (let i = candidates.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [candidates[i], candidates[j]] = [candidates[j]!, candidates[i]!];
  }
  for (const c of candidates) {
    const model = c.apply(structuredClone(valid));
    if (validity(op, model, validator) !== undefined) return { kind: c.kind, target: c.target, model };
  }
  return undefined;
}

/**
 * Mutations each negative check sends first, wherever the document forbids them, since a random
 * pick among many would send them rarely (issue 37: each was answered otherwise than documented):
 * the JSON body `null`, and each property the document refuses outright (once per name).
 */
export function pinnedMutations(
  op: Operation,
  valid: RequestModel,
  validator: SchemaValidator,
  resolve: Resolve,
): Mutation[] {
  const body = valid.body;
  const schema = body ? op.body?.schemas[body.contentType] : undefined;
  if (!body || !schema || !body.contentType.includes("json")) return [];
  const candidates: Candidate[] = [
    { kind: "type", target: "body /", apply: (m) => ({ ...m, body: { ...m.body!, value: null } }) },
  ];
  const named = new Set<string>();
  for (const field of fieldsOf(body.value, schema, validator, resolve)) {
    const set = (value: unknown) => (m: RequestModel) => {
      m.body!.value = setAt(m.body!.value, field.pointer, value);
      return m;
    };
    for (const c of neverCandidates(field, `body /${field.pointer.join("/")}`, set, resolve)) {
      const name = c.target.slice(c.target.lastIndexOf("/") + 1);
      if (!named.has(name)) candidates.push(c);
      named.add(name);
    }
  }
  const out: Mutation[] = [];
  for (const c of candidates) {
    const model = c.apply(structuredClone(valid));
    if (validity(op, model, validator) !== undefined) out.push({ kind: c.kind, target: c.target, model });
  }
  return out;
}

function paramCandidates(
  op: Operation,
  valid: RequestModel,
  validator: SchemaValidator,
  resolve: Resolve,
): Candidate[] {
  const out: Candidate[] = [];
  for (const p of op.params) {
    const target = `${p.in} ${p.name}`;
    const set = (value: unknown) => (m: RequestModel) => {
      m[p.in][p.name] = value;
      return m;
    };
    if (p.required && p.in !== "path" && valid[p.in][p.name] !== undefined)
      out.push({
        kind: "required",
        target,
        apply: (m) => {
          delete m[p.in][p.name];
          return m;
        },
      });
    const schema = resolve(p.schema);
    for (const [kind, value] of misfitsOf(schema, "text")) {
      if (p.in === "path" && (value === "" || value === "." || value === "..")) continue;
      if (p.in === "header" && !/^[\x20-\x7e]*$/.test(String(value))) continue;
      // Only values that stay invalid once they are text on the wire.
      if (validator.valid(p.schema, wireValue(p.schema, value))) continue;
      out.push({ kind, target, apply: set(value) });
    }
  }
  return out;
}

/** Invalid values for a schema, by how they miss it. `text`: a parameter (every value is a string on the wire). */
function misfitsOf(s: Json, as: "text" | "json"): Array<[MutationKind, unknown]> {
  const out: Array<[MutationKind, unknown]> = [];
  const types = new Set([s.type].flat().filter(Boolean) as string[]);
  if (s.const !== undefined || Array.isArray(s.enum)) out.push(["enum", "not-a-member"], ["enum", "ZZZ"]);
  if (types.has("integer") || types.has("number")) {
    out.push(["type", "abc"]);
    if (types.has("integer")) out.push(["type", 1.5]);
    const min = (s.minimum ?? s.exclusiveMinimum) as number | undefined;
    const max = (s.maximum ?? s.exclusiveMaximum) as number | undefined;
    if (min !== undefined) out.push(["range", min - 1]);
    if (max !== undefined) out.push(["range", max + 1]);
    if (as === "json") out.push(["type", String(min ?? max ?? 1)]);
  }
  if (types.has("string") || (types.size === 0 && (s.pattern || s.maxLength !== undefined))) {
    const min = s.minLength as number | undefined;
    const max = s.maxLength as number | undefined;
    if (max !== undefined && max < LONGEST) out.push(["length", "a".repeat(max + 1)]);
    if (min !== undefined && min > 0) out.push(["length", "a".repeat(min - 1)]);
    if (s.pattern || s.format) for (const misfit of MISFITS) out.push(["pattern", misfit]);
    if (as === "json") out.push(["type", 12345], ["type", null]);
  }
  if (types.has("boolean")) out.push(["type", "yes"], ["type", 1]);
  if (as === "json") {
    // `null` too: a reader that takes it for "no body" would let it through (issue 37).
    if (types.has("object")) out.push(["type", []], ["type", "an object"], ["type", null]);
    if (types.has("array")) out.push(["type", {}], ["type", "an array"]);
    if (types.has("null")) out.push(["type", "x"]);
  }
  return out;
}

/** Every field of the body value, with the schema it answers to. */
interface Field {
  pointer: string[];
  schema: Json;
  value: unknown;
}

function fieldsOf(
  value: unknown,
  schema: Json,
  validator: SchemaValidator,
  resolve: Resolve,
  pointer: string[] = [],
): Field[] {
  const s = chosenMember(resolve(schema), value, validator, resolve);
  const out: Field[] = [{ pointer, schema: s, value }];
  if (Array.isArray(value) && s.items && typeof s.items === "object") {
    for (const [i, item] of value.entries())
      out.push(...fieldsOf(item, s.items as Json, validator, resolve, [...pointer, String(i)]));
  } else if (value && typeof value === "object") {
    const properties = (s.properties ?? {}) as Record<string, Json>;
    for (const [k, v] of Object.entries(value as Json))
      if (properties[k]) out.push(...fieldsOf(v, properties[k]!, validator, resolve, [...pointer, k]));
  }
  return out;
}

/** The member of an anyOf/oneOf that `value` satisfies (its keywords merged with the common ones). */
function chosenMember(s: Json, value: unknown, validator: SchemaValidator, resolve: Resolve): Json {
  const members = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  if (!members || members.every((m) => Object.keys(m).every((k) => k === "required"))) return s;
  const { anyOf: _a, oneOf: _o, ...common } = s;
  for (const member of members) {
    const merged = { ...common, ...resolve(member) };
    if (validator.valid(merged, value)) return chosenMember(merged, value, validator, resolve);
  }
  return s;
}

function bodyCandidates(
  op: Operation,
  valid: RequestModel,
  validator: SchemaValidator,
  resolve: Resolve,
): Candidate[] {
  const body = valid.body;
  const schema = body ? op.body?.schemas[body.contentType] : undefined;
  if (!body || !schema) return [];
  const out: Candidate[] = [];
  if (op.bodyRequired)
    out.push({
      kind: "required",
      target: "body",
      apply: (m) => {
        delete m.body;
        return m;
      },
    });
  const json = body.contentType.includes("json");
  for (const field of fieldsOf(body.value, schema, validator, resolve)) {
    const target = `body /${field.pointer.join("/")}`;
    const set = (value: unknown) => (m: RequestModel) => {
      m.body!.value = setAt(m.body!.value, field.pointer, value);
      return m;
    };
    for (const [kind, value] of misfitsOf(field.schema, json ? "json" : "text"))
      out.push({ kind, target, apply: set(value) });
    out.push(...objectCandidates(field, target, set, resolve));
    out.push(...arrayCandidates(field, target, set));
  }
  return out;
}

function objectCandidates(
  field: Field,
  target: string,
  set: (v: unknown) => (m: RequestModel) => RequestModel,
  resolve: Resolve,
): Candidate[] {
  const record = recordOf(field);
  if (!record) return [];
  const out: Candidate[] = [];
  for (const name of (field.schema.required ?? []) as string[])
    if (name in record) {
      const { [name]: _, ...rest } = record;
      out.push({
        kind: "required",
        target: propertyTarget(target, name),
        apply: set(rest),
      });
    }
  if (field.schema.additionalProperties === false)
    out.push({ kind: "extra", target, apply: set({ ...record, x_fuzz_unknown: 1 }) });
  out.push(...neverCandidates(field, target, set, resolve));
  return out;
}

/** A field's value when it is an object (not an array, not null). */
function recordOf(field: Field): Json | undefined {
  const value = field.value;
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Json) : undefined;
}

/** The target of one property of an object field's target (`body /` names the body itself). */
const propertyTarget = (target: string, name: string) => `${target}${target.endsWith("/") ? "" : "/"}${name}`;

/**
 * The properties of an object field the document refuses outright (`not: {}`: `embedding` on a
 * write under an embedder other than `client`), each given anyway.
 */
function neverCandidates(
  field: Field,
  target: string,
  set: (v: unknown) => (m: RequestModel) => RequestModel,
  resolve: Resolve,
): Candidate[] {
  const record = recordOf(field);
  if (!record) return [];
  const out: Candidate[] = [];
  for (const [name, schema] of Object.entries((field.schema.properties ?? {}) as Record<string, Json>))
    if (!(name in record) && (schema === (false as unknown) || isNever(resolve(schema))))
      out.push({
        kind: "extra",
        target: propertyTarget(target, name),
        apply: set({ ...record, [name]: [1, 0, 0] }),
      });
  return out;
}

function arrayCandidates(
  field: Field,
  target: string,
  set: (v: unknown) => (m: RequestModel) => RequestModel,
): Candidate[] {
  const value = field.value;
  if (!Array.isArray(value)) return [];
  const out: Candidate[] = [];
  const min = field.schema.minItems as number | undefined;
  const max = field.schema.maxItems as number | undefined;
  if (min !== undefined && min > 0) out.push({ kind: "items", target, apply: set(value.slice(0, min - 1)) });
  if (max !== undefined && max < MOST_ITEMS && value.length > 0)
    out.push({
      kind: "items",
      target,
      apply: set(Array.from({ length: max + 1 }, (_, i) => value[i % value.length])),
    });
  if (field.schema.uniqueItems === true && value.length > 0)
    out.push({ kind: "unique", target, apply: set([...value, value[0]]) });
  return out;
}

function setAt(root: unknown, pointer: string[], value: unknown): unknown {
  if (pointer.length === 0) return value;
  const [head, ...rest] = pointer as [string, ...string[]];
  if (Array.isArray(root)) {
    const copy = [...root];
    copy[Number(head)] = setAt(copy[Number(head)], rest, value);
    return copy;
  }
  const copy = { ...(root as Json) };
  copy[head] = setAt(copy[head], rest, value);
  return copy;
}
