/**
 * A request of the contract checks as the document sees it: typed parameter values by location and
 * a body value under one of the operation's media types. `validity` asks the document (Ajv) whether
 * the request is one it allows, reading parameters as the wire carries them (a query value is text:
 * `limit=12` is the integer 12, `limit=abc` a string); `toWire` makes the request the server gets.
 */
import type { SchemaValidator } from "./doc-schemas.ts";
import { fillPath, type Operation, type Parameter } from "./operations.ts";
import { bytesOf, encodeSegment, type FuzzRequest } from "./request.ts";

type Json = Record<string, unknown>;

export type Location = "path" | "query" | "header";

export interface RequestModel {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  header: Record<string, unknown>;
  /** Absent: no body sent. `raw`: bytes sent as they are (a body that is not the media type's form). */
  body?: { contentType: string; value: unknown; raw?: string };
}

/** What a parameter value reads as once it has been text on the wire. */
export function wireValue(schema: Json, value: unknown): unknown {
  if (value === undefined) return undefined;
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const types = new Set(
    [schema.type, ...((schema.anyOf as Json[] | undefined) ?? []).map((m) => m.type)].flat(),
  );
  if (
    (types.has("integer") || types.has("number")) &&
    /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/.test(text)
  )
    return Number(text);
  if (types.has("boolean") && (text === "true" || text === "false")) return text === "true";
  return text;
}

/** The first way `model` breaks the document (a description), or undefined when the document allows it. */
export function validity(op: Operation, model: RequestModel, validator: SchemaValidator): string | undefined {
  for (const p of op.params) {
    const given = model[p.in][p.name];
    if (given === undefined) {
      if (p.required) return `${p.in} ${p.name} missing`;
      continue;
    }
    if (!validator.valid(p.schema, wireValue(p.schema, given))) return `${p.in} ${p.name} invalid`;
  }
  if (!model.body) return op.body && op.bodyRequired ? "body missing" : undefined;
  if (model.body.raw !== undefined) return "body not of its media type";
  const schema = op.body?.schemas[model.body.contentType];
  if (!schema) return `body of an undeclared type ${model.body.contentType}`;
  return validator.valid(schema, model.body.value) ? undefined : "body invalid";
}

function text(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function isJson(contentType: string): boolean {
  const essence = contentType.split(";")[0]!.trim().toLowerCase();
  return essence === "application/json" || essence.endsWith("+json");
}

function bodyBytes(body: NonNullable<RequestModel["body"]>): Uint8Array {
  if (body.raw !== undefined) return bytesOf(body.raw);
  if (body.contentType.includes("form-urlencoded")) {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries((body.value ?? {}) as Json))
      if (v !== undefined) form.append(k, text(v));
    return bytesOf(form.toString());
  }
  // A string under a media type that is not JSON (NDJSON, XML) is the body's text itself.
  if (typeof body.value === "string" && !isJson(body.contentType)) return bytesOf(body.value);
  return bytesOf(JSON.stringify(body.value) ?? "null");
}

export interface WireOptions {
  kind: FuzzRequest["kind"];
  headers: Record<string, string>;
  credential: string;
  signFor?: string;
  exclusive: boolean;
}

export function toWire(op: Operation, model: RequestModel, opts: WireOptions): FuzzRequest {
  const segments: Record<string, string> = {};
  for (const [k, v] of Object.entries(model.path)) segments[k] = encodeSegment(text(v));
  const query = Object.entries(model.query)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeSegment(text(v))}`);
  const headers: Record<string, string> = { ...opts.headers };
  for (const [k, v] of Object.entries(model.header)) if (v !== undefined) headers[k] = text(v);
  if (model.body) headers["content-type"] = model.body.contentType;
  return {
    kind: opts.kind,
    operation: op.key,
    method: op.method,
    path: fillPath(op.template, segments) + (query.length ? `?${query.join("&")}` : ""),
    headers,
    body: model.body ? bodyBytes(model.body) : undefined,
    credential: opts.credential,
    signFor: opts.signFor,
    exclusive: opts.exclusive,
  };
}

/** The parameters of `op` at one location. */
export function paramsAt(op: Operation, where: Location): Parameter[] {
  return op.params.filter((p) => p.in === where);
}
