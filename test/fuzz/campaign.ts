/**
 * One fuzz campaign: starts the target, sends `requests` generated requests in seeded batches
 * (a few in flight at a time), inspects every answer (verdict.ts) and checks it against the OpenAPI
 * document, asks /healthz between batches and samples the server's resident memory. Returns the
 * figures; `ok` is false on any 5xx, stack trace, planted secret, timeout, failed health check, exit
 * of the server, or memory growth past the bound.
 */
import fc from "fast-check";
import { type ConformanceChecker, checkerFromDocument } from "../helpers/openapi-conformance.ts";
import { type Answer, sendFetch, sendRaw } from "./client.ts";
import { type ContractFigures, runContract } from "./contract-check.ts";
import { contractPools } from "./contract-pools.ts";
import { hostileBodies } from "./corpus.ts";
import { resolverOf, validatorOf } from "./doc-schemas.ts";
import { requestArbitrary } from "./generator.ts";
import { operationsOf } from "./operations.ts";
import type { FuzzRequest, RequestKind } from "./request.ts";
import { type MemoryFigures, MemoryWatch } from "./rss.ts";
import { type FuzzTarget, startFuzzTarget } from "./target.ts";
import { type FindingKind, inspect } from "./verdict.ts";

export interface CampaignOptions {
  requests: number;
  seed: number;
  /** Fail when the server's RSS grows past its start by more than this. */
  rssGrowthLimitMiB: number;
  batchSize?: number;
  concurrency?: number;
  log?: (line: string) => void;
  /**
   * The contract checks (contract-check.ts), run before the random requests: this many positive
   * and negative requests per operation. Absent: not run.
   */
  contract?: { positivePerOperation: number; negativePerOperation: number };
}

export interface FailureExample {
  kind: FindingKind | "health";
  operation: string;
  request: string;
  status: number;
  detail: string;
}

export interface Figures {
  seed: number;
  tried: number;
  seconds: number;
  byStatus: Record<string, number>;
  byKind: Record<RequestKind, number>;
  /** Per operation aimed at, its answers by status (in the JSON report). */
  byOperation: Record<string, Record<string, number>>;
  operations: { covered: number; total: number; missing: string[] };
  fiveXX: number;
  stackTraces: number;
  secretLeaks: number;
  timeouts: number;
  /** Connections the server closed without an answer (raw requests it would not parse, bodies it would not read). */
  closedWithoutAnswer: number;
  /**
   * Answers of Bun's HTTP layer to requests it refused before the app saw them (no X-Request-Id),
   * by status: 400 (bad framing), 431 (headers too large), 505 (a request line its parser rejects).
   */
  httpLayer: Record<string, number>;
  nonConformant: { count: number; examples: string[] };
  health: { checks: number; failures: number; serverExited: boolean };
  /** The server's resident memory (MiB); `limitGrowth` bounds VmRSS peak minus start. */
  rssMiB: MemoryFigures & { limitGrowth: number };
  failures: FailureExample[];
  /** The contract checks' figures, when they ran. */
  contract?: ContractFigures;
  ok: boolean;
}

const MAX_EXAMPLES = 25;
/**
 * The server's open-tenant bound during the fuzz. Each open tenant holds about 2 MiB, and the fuzz
 * creates tenants as it goes; with the bound the LRU passivates them, so what is left to grow is
 * what must not (the default bound, derived from the open-file limit, can be thousands).
 */
const MAX_OPEN_TENANTS = 16;
const mib = (kib: number) => Math.round(kib / 102.4) / 10;

export async function runCampaign(opts: CampaignOptions): Promise<Figures> {
  const started = performance.now();
  const target = await startFuzzTarget({ MEMORY_RUNTIME_MAX_OPEN_TENANTS: String(MAX_OPEN_TENANTS) });
  try {
    return await fuzz(target, opts, started);
  } finally {
    await target.close();
  }
}

async function fuzz(target: FuzzTarget, opts: CampaignOptions, started: number): Promise<Figures> {
  const log = opts.log ?? (() => undefined);
  const ops = operationsOf(target.doc);
  const arbitrary = requestArbitrary(ops, target.pools, hostileBodies());
  const checker = checkerFromDocument(target.doc);
  const pid = target.server.proc.pid;
  let memory = new MemoryWatch(pid);
  const figures = emptyFigures(opts, ops.length, memory.figures());
  const covered = new Set<string>();
  if (opts.contract) {
    const pools = await contractPools(target.server.base, ops, target.pools);
    figures.contract = await runContract(
      ops,
      { pools, resolve: resolverOf(target.doc) },
      {
        ...opts.contract,
        seed: opts.seed,
        concurrency: opts.concurrency ?? 8,
        validator: validatorOf(target.doc),
        send: (req) => exercise(target, checker, req, figures),
      },
    );
    log(
      `contract: ${figures.contract.totals.positive.sent} positive, ${figures.contract.totals.negative.sent} negative, disagreements ${figures.contract.totals.positive.disagreements + figures.contract.totals.negative.disagreements}`,
    );
    // The memory bound is on the random requests: the contract checks create tenants and entries
    // that stay, so the watch starts again after them.
    memory = new MemoryWatch(pid);
  }
  const batchSize = opts.batchSize ?? 250;
  const batches = Math.ceil(opts.requests / batchSize);
  for (let batch = 0; batch < batches; batch++) {
    const size = Math.min(batchSize, opts.requests - batch * batchSize);
    const requests = fc.sample(arbitrary, { seed: opts.seed + batch, numRuns: size });
    await inPool(requests, opts.concurrency ?? 8, async (req) => {
      covered.add(req.operation);
      await exercise(target, checker, req, figures);
    });
    await checkHealth(target, figures);
    const rss = memory.sample();
    log(
      `batch ${batch + 1}/${batches}: ${figures.tried} tried, 5xx ${figures.fiveXX}, leaks ${figures.stackTraces + figures.secretLeaks}, rss ${mib(rss.total)} MiB (anon ${mib(rss.anon)})`,
    );
    if (figures.health.serverExited) break;
  }
  const missing = ops.map((op) => op.key).filter((key) => !covered.has(key));
  figures.operations = { covered: ops.length - missing.length, total: ops.length, missing };
  figures.rssMiB = { ...memory.figures(), limitGrowth: opts.rssGrowthLimitMiB };
  figures.seconds = Math.round((performance.now() - started) / 100) / 10;
  figures.ok = verdictOk(figures);
  return figures;
}

function emptyFigures(opts: CampaignOptions, total: number, memory: MemoryFigures): Figures {
  return {
    seed: opts.seed,
    tried: 0,
    seconds: 0,
    byStatus: {},
    byKind: { schema: 0, hostile: 0, webhook: 0, unrouted: 0, raw: 0, positive: 0, negative: 0 },
    byOperation: {},
    operations: { covered: 0, total, missing: [] },
    fiveXX: 0,
    stackTraces: 0,
    secretLeaks: 0,
    timeouts: 0,
    closedWithoutAnswer: 0,
    httpLayer: {},
    nonConformant: { count: 0, examples: [] },
    health: { checks: 0, failures: 0, serverExited: false },
    rssMiB: { ...memory, limitGrowth: opts.rssGrowthLimitMiB },
    failures: [],
    ok: false,
  };
}

function verdictOk(f: Figures): boolean {
  const growth = f.rssMiB.peak - f.rssMiB.start;
  return (
    f.fiveXX === 0 &&
    f.stackTraces === 0 &&
    f.secretLeaks === 0 &&
    f.timeouts === 0 &&
    f.health.failures === 0 &&
    !f.health.serverExited &&
    f.operations.missing.length === 0 &&
    growth <= f.rssMiB.limitGrowth &&
    (f.contract === undefined ||
      f.contract.totals.positive.disagreements + f.contract.totals.negative.disagreements === 0)
  );
}

async function inPool<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

async function send(target: FuzzTarget, req: FuzzRequest): Promise<Answer> {
  if (req.raw) return sendRaw(target.host, target.port, req.raw);
  const url = target.server.base + req.path;
  if (!req.signFor) return sendFetch(url, { method: req.method, headers: req.headers, body: req.body });
  const signed = await target.sign(req.signFor, req.body ?? new Uint8Array(), url);
  return sendFetch(url, {
    method: req.method,
    headers: { ...signed.headers, ...req.headers },
    body: signed.body,
  });
}

/** The one lane destructive requests take, one at a time. */
let exclusiveLane: Promise<unknown> = Promise.resolve();

function sendInLane(target: FuzzTarget, req: FuzzRequest): Promise<Answer> {
  if (!req.exclusive) return send(target, req);
  const answer = exclusiveLane.then(() => send(target, req));
  exclusiveLane = answer.catch(() => undefined);
  return answer;
}

/** Sends one request and inspects its answer; returns the answer (undefined when there was none). */
async function exercise(
  target: FuzzTarget,
  checker: ConformanceChecker,
  req: FuzzRequest,
  f: Figures,
): Promise<Answer | undefined> {
  const answer = await sendInLane(target, req);
  f.tried++;
  f.byKind[req.kind]++;
  const statusKey = answer.status === 0 ? (answer.timedOut ? "timeout" : "closed") : String(answer.status);
  f.byStatus[statusKey] = (f.byStatus[statusKey] ?? 0) + 1;
  const operationKey = `${req.kind} ${req.operation}`;
  const perOperation = f.byOperation[operationKey] ?? {};
  perOperation[statusKey] = (perOperation[statusKey] ?? 0) + 1;
  f.byOperation[operationKey] = perOperation;
  if (answer.timedOut) {
    f.timeouts++;
    example(f, req, answer, "timeout", `no answer within the deadline (${answer.transportError ?? ""})`);
    return undefined;
  }
  if (answer.status === 0) {
    f.closedWithoutAnswer++;
    return undefined;
  }
  const body = Buffer.from(answer.body).toString("utf8");
  const byHttpLayer = !/^x-request-id:/im.test(answer.headers);
  if (byHttpLayer) f.httpLayer[answer.status] = (f.httpLayer[answer.status] ?? 0) + 1;
  for (const finding of inspect({ status: answer.status, headers: answer.headers, body }, target.planted)) {
    if (finding.kind === "5xx" && isParserRefusal(req, answer, byHttpLayer)) continue;
    if (finding.kind === "5xx") f.fiveXX++;
    if (finding.kind === "stack-trace") f.stackTraces++;
    if (finding.kind === "secret") f.secretLeaks++;
    example(f, req, answer, finding.kind, finding.detail);
  }
  if (!req.raw && !byHttpLayer) await checkConformance(checker, req, answer, f);
  return answer;
}

/**
 * Bun's HTTP/1.1 parser answers 505 to a request line it rejects (an unknown HTTP version, and
 * likewise a bare LF or a NUL in the request target) before any app code runs; a bare Bun.serve
 * does the same. The app itself never answers 505, and an app failure carries an X-Request-Id.
 */
function isParserRefusal(req: FuzzRequest, answer: Answer, byHttpLayer: boolean): boolean {
  return req.kind === "raw" && answer.status === 505 && byHttpLayer && answer.body.length === 0;
}

async function checkConformance(checker: ConformanceChecker, req: FuzzRequest, answer: Answer, f: Figures) {
  if (req.method === "HEAD" || [101, 204, 205, 304].includes(answer.status)) return;
  if (answer.contentType.startsWith("text/event-stream")) return;
  const headers = new Headers();
  for (const line of answer.headers.split("\n")) {
    const at = line.indexOf(": ");
    if (at > 0) headers.append(line.slice(0, at), line.slice(at + 2));
  }
  // The path as the server saw it: fetch resolves dot segments ("/memory/facts/." is "/memory/facts/").
  const url = new URL(`http://fuzz.invalid${req.path}`);
  const path = url.pathname + url.search;
  const res = new Response(answer.body, { status: answer.status, headers });
  const faults = await checker.problems(req.method, path, res);
  if (faults.length === 0) return;
  f.nonConformant.count++;
  const summary = `${checker.operationOf(req.method, path)} ${answer.status}: ${faults[0]!.slice(0, 200)}`;
  if (
    f.nonConformant.examples.length >= MAX_EXAMPLES ||
    f.nonConformant.examples.some((e) => e.startsWith(summary))
  )
    return;
  f.nonConformant.examples.push(`${summary}\n    ${describe(req)}`);
}

function example(f: Figures, req: FuzzRequest, answer: Answer, kind: FailureExample["kind"], detail: string) {
  if (f.failures.length >= MAX_EXAMPLES) return;
  f.failures.push({ kind, operation: req.operation, request: describe(req), status: answer.status, detail });
}

/** A request as a failure report shows it: enough to reproduce by hand, clipped. */
export function describe(req: FuzzRequest): string {
  const preview = (bytes?: Uint8Array) =>
    bytes ? JSON.stringify(Buffer.from(bytes.subarray(0, 160)).toString("latin1")) : "";
  if (req.raw) return `raw ${preview(req.raw)}`;
  const names = Object.entries(req.headers);
  const shown =
    names.length > 12 ? [...names.slice(0, 12), [`…${names.length - 12} more`, ""] as const] : names;
  const headers = shown.map(([k, v]) => `${k}(${v.length})`).join(" ");
  const body = req.body ? ` body[${req.body.length}] ${preview(req.body)}` : "";
  return `${req.method} ${req.path.slice(0, 200)} cred=${req.credential} ${headers}${body}`;
}

async function checkHealth(target: FuzzTarget, f: Figures): Promise<void> {
  f.health.checks++;
  const proc = target.server.proc;
  if (proc.exitCode !== null || proc.signalCode !== null) {
    f.health.serverExited = true;
    f.health.failures++;
    f.failures.push({
      kind: "health",
      operation: "GET /healthz",
      request: "",
      status: 0,
      detail: `server exited: ${target.server.log()}`,
    });
    return;
  }
  const answer = await sendFetch(`${target.server.base}/healthz`, { method: "GET", headers: {} });
  const body = Buffer.from(answer.body).toString("utf8");
  if (answer.status === 200 && body.includes('"status":"ok"')) return;
  f.health.failures++;
  f.failures.push({
    kind: "health",
    operation: "GET /healthz",
    request: "",
    status: answer.status,
    detail: body.slice(0, 300),
  });
}
