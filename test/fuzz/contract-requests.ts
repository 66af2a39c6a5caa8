/**
 * The requests of the contract checks, per operation of the served document: positive ones generated
 * valid from the operation's schemas (parameters, headers, body under one of its media types), with
 * the credential that fits the operation and, most of the time, values that exist (tenants, entries,
 * roles, …: a 404 is no refusal, but a request that reaches the handler says more); negative ones
 * made from a valid request by one mutation (mutations.ts).
 */
import fc from "fast-check";
import { type RequestModel, toWire } from "./contract-model.ts";
import { isDestructive, type Operation } from "./operations.ts";
import type { FuzzRequest, Pools } from "./request.ts";
import type { Credential } from "./tokens.ts";
import { type Known, NEVER, validArbitrary } from "./valid-arbitrary.ts";

type Json = Record<string, unknown>;

/** Values the positive check draws on besides the pools: answers of the server it asked first. */
export interface ContractPools extends Pools {
  /** Per list operation (`GET /template`), a `next_cursor` it answered: cursors are opaque. */
  cursors: Record<string, string>;
  /** An export of a fixture tenant (NDJSON): the body an import takes. */
  exportBody: string;
  /** The admin token, for the dashboard's sign-in form. */
  adminToken: string;
}

export interface ContractContext {
  pools: ContractPools;
  resolve: (schema: Json) => Json;
}

/** Operations only the operator may call: under /admin/, and `GET /metrics` (Prometheus scrapes with it). */
export function isOperatorOperation(op: Operation): boolean {
  return op.template.startsWith("/admin/") || op.template === "/metrics";
}

/** The credential that fits an operation: the operator's on its routes, a tenant owner's elsewhere. */
export function fittingCredential(op: Operation, pools: Pools): Credential {
  return isOperatorOperation(op) ? pools.adminCredentials[0]! : pools.tenantCredentials[0]!;
}

function knownPathValues(name: string, op: Operation, pools: ContractPools): unknown[] | undefined {
  switch (name) {
    case "tenant_id":
      if (isDestructive(op)) return pools.victimIds;
      return op.template.startsWith("/admin/") ? pools.tenantIds : [pools.tenantIds[0]!];
    case "sha8":
      return pools.entryIds;
    case "event_id":
      return pools.eventIds;
    case "source":
      return op.template.startsWith("/webhooks/") ? pools.signedSources : pools.sourceIds;
    case "role_name":
      return pools.roleNames;
    case "subscription_id":
      return pools.subscriptionIds;
    default:
      return undefined;
  }
}

/**
 * Body fields whose values must come from the server or stay on this machine, most of the time:
 * entries of the caller's tenant to refer to (its decision for an outcome). (`embedding` on a write
 * under an embedder other than `client` is left out by its schema, `not: {}`.)
 */
function knownBodyValues(pools: ContractPools): Known {
  const ids = fc.constantFrom(...pools.ownEntryIds);
  return {
    // Outbound subscriptions never leave the machine: the receiver is always a loopback one.
    url: fc.constantFrom(...pools.loopbackUrls.filter((u) => u.includes("127.0.0.1"))),
    decision_id: fc.constant(pools.ownEntryIds[0]!),
    supersedes: ids,
    corrects: ids,
    token: fc.constant(pools.adminToken),
    // An entry's tenant_id, when given, is the caller's own (another is a 403).
    tenant_id: fc.constant(pools.tenantIds[0]!),
    // Roles a token may carry: those of the tenant's library (an unknown one is a 422).
    roles: fc.uniqueArray(fc.constantFrom(...pools.roleNames.filter((r) => r !== "ghost")), {
      minLength: 1,
      maxLength: 3,
    }),
  };
}

function paramArb(op: Operation, where: "path" | "query" | "header", ctx: ContractContext) {
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of op.params.filter((x) => x.in === where)) {
    const fromSchema = validArbitrary(p.schema, { resolve: ctx.resolve, use: where });
    const known = where === "path" ? knownPathValues(p.name, op, ctx.pools) : undefined;
    let value = known
      ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: fromSchema })
      : fromSchema;
    // A cursor is opaque: only one the server answered is a cursor (docs/api.md, "Paging").
    if (p.name === "cursor") {
      const cursor = ctx.pools.cursors[op.key];
      if (cursor === undefined) continue;
      value = fc.constant(cursor);
    }
    model[p.name] = p.required || where === "path" ? value : fc.option(value, { nil: undefined, freq: 2 });
  }
  return fc.record(model);
}

function bodyArb(op: Operation, ctx: ContractContext): fc.Arbitrary<RequestModel["body"]> {
  if (!op.body) return fc.constant(undefined);
  const known = knownBodyValues(ctx.pools);
  const bodies = op.body.contentTypes.map((contentType) => {
    const schema = op.body!.schemas[contentType]!;
    if (contentType.includes("ndjson")) return fc.constant({ contentType, value: ctx.pools.exportBody });
    return validArbitrary(schema, { resolve: ctx.resolve, known, use: "json" }).map((value) =>
      value === NEVER ? undefined : { contentType, value },
    );
  });
  const body = fc.oneof(...bodies);
  return op.bodyRequired ? body : fc.option(body, { nil: undefined, freq: 3 });
}

/** Valid request models of `op` (Ajv still has the last word: see contract-check.ts). */
export function positiveArb(op: Operation, ctx: ContractContext): fc.Arbitrary<RequestModel> {
  return fc
    .record({
      path: paramArb(op, "path", ctx),
      query: paramArb(op, "query", ctx),
      header: paramArb(op, "header", ctx),
      body: bodyArb(op, ctx),
      unknownQuery: fc.boolean(),
    })
    .map(({ unknownQuery, ...model }) => {
      // Unknown query parameters are ignored everywhere (docs/api.md): one is sent now and then.
      if (unknownQuery) model.query.x_fuzz_unknown = "1";
      return model as RequestModel;
    });
}

/** The request the server gets for a model, with the fitting credential (signed, on the webhook route). */
export function wireRequest(
  op: Operation,
  model: RequestModel,
  ctx: ContractContext,
  kind: "positive" | "negative",
): FuzzRequest {
  const credential = fittingCredential(op, ctx.pools);
  const headers: Record<string, string> = {};
  if (credential.authorization) headers.authorization = credential.authorization;
  const source = op.template.startsWith("/webhooks/") ? String(model.path.source) : undefined;
  const signed = source && ctx.pools.signedSources.includes(source) ? source : undefined;
  return toWire(op, model, {
    kind,
    headers,
    credential: signed ? `signed:${signed}` : credential.name,
    signFor: signed,
    // An export holds the tenant's files open: a few at once per tenant (more are a 503), so one at a time.
    exclusive: isDestructive(op) || op.template.endsWith("/export"),
  });
}
