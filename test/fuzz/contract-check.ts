/**
 * The contract checks of the fuzz, per operation of the served document:
 *
 * - positive acceptance: requests generated valid from the document are never refused as invalid
 *   (400, 406, 415 or 422); any other answer (2xx, a 404 for an id that does not exist, a 409, a
 *   429) is not a refusal of the request's form;
 * - negative rejection: a valid request made invalid by one mutation (mutations.ts) gets a 4xx;
 *   the pinned mutations (a JSON `null` body, a field the document refuses outright) are always sent.
 *
 * An answer that breaks the rule is a disagreement, unless an exception of contract-exceptions.ts
 * explains it (each is listed and justified in docs/testing.md). Per-operation counts are returned.
 */
import fc from "fast-check";
import { seededRandom } from "../helpers/random.ts";
import type { Answer } from "./client.ts";
import { explain, problemOf } from "./contract-exceptions.ts";
import { type RequestModel, validity } from "./contract-model.ts";
import { type ContractContext, positiveArb, wireRequest } from "./contract-requests.ts";
import type { SchemaValidator } from "./doc-schemas.ts";
import { mutate, pinnedMutations } from "./mutations.ts";
import type { Operation } from "./operations.ts";
import type { FuzzRequest } from "./request.ts";

/** The statuses that refuse a request for its form: what a valid request must never get. */
export const REFUSALS = new Set([400, 406, 415, 422]);

export interface CheckCounts {
  sent: number;
  /** positive: not refused; negative: answered < 400 (or 5xx). */
  accepted: number;
  /** positive: refused (400/406/415/422); negative: answered 4xx. */
  rejected: number;
  /** Answers against the rule that an exception explains. */
  explained: number;
  /** Answers against the rule that nothing explains. */
  disagreements: number;
}

export interface OperationContract {
  positive: CheckCounts;
  negative: CheckCounts;
  /** Generated values Ajv found invalid (dropped, not sent). */
  generatorMisses: number;
  /** Why no negative request was sent, when none was (an operation that takes no input). */
  noMutation?: string;
  /** Mutations sent, by kind. */
  mutations: Record<string, number>;
  /** Answers by status, per check. */
  statuses: { positive: Record<string, number>; negative: Record<string, number> };
}

export interface ContractFigures {
  perOperation: Record<string, OperationContract>;
  totals: { positive: CheckCounts; negative: CheckCounts; generatorMisses: number };
  /** Explained answers by exception id. */
  explained: Record<string, number>;
  /** Unexplained answers, grouped (`check operation → status code field`), with a count and the first example. */
  disagreements: Record<string, { count: number; example: string }>;
}

export interface ContractOptions {
  seed: number;
  positivePerOperation: number;
  negativePerOperation: number;
  concurrency: number;
  validator: SchemaValidator;
  /** Sends one request (checking its answer like any other of the fuzz); undefined: no answer. */
  send(req: FuzzRequest): Promise<Answer | undefined>;
}

const MAX_DISAGREEMENTS = 40;
const emptyCounts = (): CheckCounts => ({
  sent: 0,
  accepted: 0,
  rejected: 0,
  explained: 0,
  disagreements: 0,
});

interface Planned {
  op: Operation;
  check: "positive" | "negative";
  model: RequestModel;
  what: string;
}

export async function runContract(
  ops: Operation[],
  ctx: ContractContext,
  opts: ContractOptions,
): Promise<ContractFigures> {
  const figures: ContractFigures = {
    perOperation: {},
    totals: { positive: emptyCounts(), negative: emptyCounts(), generatorMisses: 0 },
    explained: {},
    disagreements: {},
  };
  const planned: Planned[] = [];
  ops.forEach((op, i) => {
    const entry: OperationContract = {
      positive: emptyCounts(),
      negative: emptyCounts(),
      generatorMisses: 0,
      mutations: {},
      statuses: { positive: {}, negative: {} },
    };
    figures.perOperation[op.key] = entry;
    planned.push(...plan(op, ctx, opts, opts.seed + i * 7919, entry));
  });
  // Deleting a tenant last: the victims the other destructive operations aim at stay until then.
  const last = (p: Planned) =>
    p.op.method === "DELETE" && p.op.template === "/admin/tenants/{tenant_id}" ? 1 : 0;
  planned.sort((a, b) => last(a) - last(b));
  await inPool(planned, opts.concurrency, async (p) => {
    const req = wireRequest(p.op, p.model, ctx, p.check);
    const answer = await opts.send(req);
    record(figures, p, req, answer);
  });
  for (const entry of Object.values(figures.perOperation)) {
    add(figures.totals.positive, entry.positive);
    add(figures.totals.negative, entry.negative);
    figures.totals.generatorMisses += entry.generatorMisses;
  }
  return figures;
}

function plan(
  op: Operation,
  ctx: ContractContext,
  opts: ContractOptions,
  seed: number,
  entry: OperationContract,
): Planned[] {
  const wanted = opts.positivePerOperation + opts.negativePerOperation;
  // More samples than needed: the ones Ajv refuses are dropped.
  const samples = fc.sample(positiveArb(op, ctx), { seed, numRuns: wanted * 2 + 10 });
  const valid: RequestModel[] = [];
  for (const model of samples) {
    distinctIdempotencyKey(model);
    if (validity(op, model, opts.validator) === undefined) valid.push(model);
    else entry.generatorMisses++;
  }
  const out: Planned[] = valid
    .slice(0, opts.positivePerOperation)
    .map((model) => ({ op, check: "positive" as const, model, what: "valid" }));
  const random = seededRandom(seed);
  const bases = valid.slice(opts.positivePerOperation).concat(valid);
  // The pinned mutations first (of the first base that has a body), then random ones.
  const withBody = bases.find((b) => b.body !== undefined);
  const pinned = withBody ? pinnedMutations(op, withBody, opts.validator, ctx.resolve) : [];
  const negatives = pinned.slice(0, opts.negativePerOperation);
  for (let i = 0; i < bases.length && negatives.length < opts.negativePerOperation; i++) {
    const mutation = mutate(op, bases[i]!, opts.validator, ctx.resolve, random);
    if (mutation) negatives.push(mutation);
  }
  for (const mutation of negatives) {
    entry.mutations[mutation.kind] = (entry.mutations[mutation.kind] ?? 0) + 1;
    out.push({ op, check: "negative", model: mutation.model, what: `${mutation.kind} ${mutation.target}` });
  }
  if (!out.some((p) => p.check === "negative"))
    entry.noMutation =
      op.params.length === 0 && !op.body ? "takes no input" : "no mutation the document refuses";
  return out;
}

let keys = 0;

/**
 * A generated Idempotency-Key made unique (still 1–255 visible ASCII characters): the same key with
 * another body is the documented 422, which a request generated independently is not meant to test.
 */
function distinctIdempotencyKey(model: RequestModel): void {
  const key = model.header["idempotency-key"];
  if (typeof key === "string") model.header["idempotency-key"] = `${key.slice(0, 240)}~${++keys}`;
}

function record(f: ContractFigures, p: Planned, req: FuzzRequest, answer: Answer | undefined): void {
  const entry = f.perOperation[p.op.key]!;
  const counts = entry[p.check];
  counts.sent++;
  const status = answer?.status ?? 0;
  const byStatus = entry.statuses[p.check];
  byStatus[status] = (byStatus[status] ?? 0) + 1;
  const refused = REFUSALS.has(status);
  const fourXX = status >= 400 && status < 500;
  if (p.check === "positive") refused ? counts.rejected++ : counts.accepted++;
  else fourXX ? counts.rejected++ : counts.accepted++;
  const ruleHeld = p.check === "positive" ? !refused : fourXX;
  if (ruleHeld) return;
  const body = answer ? Buffer.from(answer.body).toString("utf8") : "";
  const reason = explain({ check: p.check, op: p.op, model: p.model, status, body });
  if (reason) {
    counts.explained++;
    f.explained[reason] = (f.explained[reason] ?? 0) + 1;
    return;
  }
  counts.disagreements++;
  const problem = problemOf(body);
  const key = `${p.check} ${p.op.key} → ${status} ${problem.code ?? ""} ${problem.paths[0] ?? ""}`.trim();
  const group = f.disagreements[key];
  if (group) group.count++;
  else if (Object.keys(f.disagreements).length < MAX_DISAGREEMENTS)
    f.disagreements[key] = {
      count: 1,
      example: `(${p.what}) ${body.slice(0, 300)}\n    ${describeModel(req, p.model)}`,
    };
}

function describeModel(req: FuzzRequest, model: RequestModel): string {
  const body = model.body ? ` body ${JSON.stringify(model.body.value)?.slice(0, 300)}` : "";
  const headers = Object.keys(model.header).length
    ? ` headers ${JSON.stringify(model.header).slice(0, 200)}`
    : "";
  return `${req.method} ${req.path.slice(0, 300)}${headers}${body}`;
}

function add(total: CheckCounts, part: CheckCounts): void {
  for (const key of Object.keys(total) as Array<keyof CheckCounts>) total[key] += part[key];
}

async function inPool<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}
