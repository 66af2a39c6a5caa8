/**
 * The business part of `bun run eval` (docs/eval.md#business-memory): the seeded world played into
 * a fresh tenant per system through the webhook routes, then every question asked. The service is
 * asked through `POST /memory/search` (with `valid_at` / `as_of` where the question says when); the
 * baseline is plain BM25 over the contents of the very entries the service wrote, every version
 * of them, without any notion of time.
 */
import { machine, round } from "../../stats.ts";
import { Bm25 } from "../bm25.ts";
import { headCommit, type SystemResult } from "../evaluate.ts";
import { asVariant, type Variant } from "../features.ts";
import { LIMIT } from "../retriever.ts";
import { ServiceClient } from "../service-client.ts";
import { type EvalRuntime, startRuntime } from "../service-retriever.ts";
import { type Played, play } from "./play.ts";
import { type BusinessQuestion, businessQuestions, KINDS } from "./questions.ts";
import { type BusinessScores, type KindAverages, scoreBusiness, summariseBusiness } from "./score.ts";
import { type EntryMeta, type Step, timelineOf } from "./timeline.ts";
import { businessWorld } from "./world.ts";

export const BUSINESS_SET_NAME = "business-memory-v1";

export interface BusinessSystem {
  name: string;
  kind: "baseline" | "service";
  /** A variant of the ablation (`--ablation`): its embedder and the feature flipped. */
  embedder?: SystemResult["embedder"];
  feature?: SystemResult["feature"];
  status: "ok" | "skipped" | "failed";
  note?: string;
  by_kind?: Record<string, KindAverages>;
  timings?: { load_s: number; search_s: number; total_s: number };
}

export interface BusinessReport {
  dataset: Record<string, unknown>;
  procedure: Record<string, string>;
  systems: BusinessSystem[];
  date: string;
  commit: string | undefined;
  machine: ReturnType<typeof machine>;
  total_s: number;
}

const PROCEDURE = {
  world:
    "a seeded generator (bench/eval/business/world.ts): companies with a contact, two deals each (one in five with a stage change delivered after the next one and retried), 0–3 support tickets (opened, escalated to urgent, solved), paying customers' subscriptions, payments and failed invoices, and agents' notes, discounts (half superseded) and headquarters facts (corrected)",
  write:
    "one fresh tenant per system; every platform event through POST /webhooks/{source}/{tenant_id} signed as the platform signs it (marketing_crm v1, helpdesk, payments), one event a delivery in delivery order; agents' writes through POST /memory/{facts,decisions} with supersedes / corrects",
  search:
    "POST /memory/search {query, limit: 10}, plus valid_at for past-date questions, as_of (a moment before the corrections) for the before-the-correction questions, and status: open with categories [exception] and tags [ticket] for open_cases (open_cases_text asks the same question as text alone)",
  baseline:
    "BM25 (k1 1.2, b 0.75, bench/eval/bm25.ts) over the content of every entry the service wrote, superseded and corrected ones included, no time filter",
  hit_at_1: "the first result is a gold entry",
  recall_at_k: "a gold entry is among the first k results",
  all_gold_at_10: "two-source questions: an entry of each source's gold among the first 10",
  entries_at_10:
    "what-do-we-know questions: share of the company's entries among the first 10 (of at most 10)",
  sources_at_10: "what-do-we-know questions: share of the company's sources with an entry among the first 10",
  stale_above:
    "share of questions where an older, superseded or closed entry of the same object ranks above the first gold entry (within the first 10)",
};

interface Prepared {
  steps: Step[];
  questions: BusinessQuestion[];
  meta: Map<string, EntryMeta>;
  world: ReturnType<typeof businessWorld>;
}

function prepare(): Prepared {
  const world = businessWorld();
  const steps = timelineOf(world);
  return {
    world,
    steps,
    questions: businessQuestions(world, steps),
    meta: new Map(steps.map((s) => [s.key, s.meta])),
  };
}

function describe(p: Prepared): Record<string, unknown> {
  const byKind = Object.fromEntries(KINDS.map((k) => [k, p.questions.filter((q) => q.kind === k).length]));
  const bySource: Record<string, number> = {};
  for (const s of p.steps) bySource[s.meta.source] = (bySource[s.meta.source] ?? 0) + 1;
  const deals = p.world.companies.flatMap((c) => c.deals);
  return {
    name: BUSINESS_SET_NAME,
    companies: p.world.companies.length,
    deals: deals.length,
    reordered_deals: deals.filter((d) => d.late !== undefined).length,
    tickets: p.world.companies.reduce((n, c) => n + c.tickets.length, 0),
    paying_customers: p.world.companies.filter((c) => c.billing).length,
    steps_by_source: bySource,
    questions: p.questions.length,
    by_kind: byKind,
  };
}

type Ask = (q: BusinessQuestion) => Promise<string[]>;

async function measure(
  name: string,
  kind: BusinessSystem["kind"],
  p: Prepared,
  setUp: () => Promise<{ ask?: Ask; refused?: string; close?: () => Promise<void>; loadMs?: number }>,
  log: (line: string) => void,
): Promise<BusinessSystem> {
  const started = performance.now();
  log(`${name}: starting`);
  const { ask, refused, close, loadMs = 0 } = await setUp();
  if (!ask) {
    log(`${name}: skipped (${refused})`);
    return { name, kind, status: "skipped", note: refused };
  }
  try {
    const searching = performance.now();
    const scored: { kind: BusinessQuestion["kind"]; scores: BusinessScores }[] = [];
    for (const q of p.questions)
      scored.push({ kind: q.kind, scores: scoreBusiness(q, await ask(q), (key) => p.meta.get(key)) });
    const search_s = round((performance.now() - searching) / 1000);
    log(`${name}: ${p.questions.length} questions in ${search_s} s`);
    const timings = {
      load_s: round(loadMs / 1000),
      search_s,
      total_s: round((performance.now() - started) / 1000),
    };
    return { name, kind, status: "ok", by_kind: summariseBusiness(scored), timings };
  } catch (error) {
    const note = error instanceof Error ? error.message : String(error);
    log(`${name}: failed (${note})`);
    return { name, kind, status: "failed", note };
  } finally {
    await close?.();
  }
}

const CATEGORIES = ["decision", "exception", "fact", "workflow", "relationship", "outcome"];

/** Every entry's content as stored, by step key (the baseline's documents). */
async function contents(rt: EvalRuntime, played: Played): Promise<{ id: string; text: string }[]> {
  const client = new ServiceClient(rt.runtime.app);
  const docs: { id: string; text: string }[] = [];
  for (const [key, id] of played.ids)
    for (const category of CATEGORIES) {
      const answer = await client.call<{ content: string }>(
        "GET",
        `/memory/${category}s/${id}`,
        played.token,
      );
      if (answer.status !== 200) continue;
      docs.push({ id: key, text: answer.body.content });
      break;
    }
  return docs;
}

/** Plays the world into a runtime of `system`; the played tenant, or why it could not start. */
async function loaded(system: string | Variant, p: Prepared, log: (line: string) => void) {
  const variant = asVariant(system);
  const { started, refused } = await startRuntime(variant.embedder, process.env, variant.env);
  if (!started) return { refused };
  const loading = performance.now();
  try {
    const played = await play(started, p.world, p.steps);
    const loadMs = performance.now() - loading;
    log(
      `  ${played.webhooks} webhook events (${played.duplicates} duplicates) and ${played.writes} writes in ${round(loadMs / 1000)} s`,
    );
    return { rt: started, played, loadMs };
  } catch (error) {
    await started.close();
    throw error;
  }
}

function bm25System(p: Prepared, log: (line: string) => void) {
  return measure(
    "bm25",
    "baseline",
    p,
    async () => {
      const { rt, played, loadMs } = await loaded("hash", p, log);
      if (!rt) throw new Error("the hash embedder did not start");
      const index = new Bm25(await contents(rt, played));
      await rt.close();
      return { ask: async (q) => index.search(q.question, LIMIT).map((hit) => hit.id), loadMs };
    },
    log,
  );
}

function serviceSystem(variant: Variant, p: Prepared, log: (line: string) => void) {
  return measure(
    variant.name,
    "service",
    p,
    async () => {
      const { rt, played, loadMs, refused } = await loaded(variant, p, log);
      if (!rt) return { refused };
      const client = new ServiceClient(rt.runtime.app);
      const keyOf = new Map([...played.ids].map(([key, id]) => [id, key]));
      const ask: Ask = async (q) => {
        const { results } = await client.expect<{ results: { entry: { id: string } }[] }>(
          [200],
          "POST",
          "/memory/search",
          played.token,
          {
            ...variant.controls,
            query: q.question,
            limit: LIMIT,
            valid_at: q.validAt === undefined ? undefined : new Date(q.validAt).toISOString(),
            as_of: q.beforeCorrections ? played.beforeCorrections : undefined,
            status: q.status,
            categories: q.categories,
            tags: q.tags,
          },
        );
        return results.map((r) => keyOf.get(r.entry.id) ?? r.entry.id);
      };
      return { ask, loadMs, close: () => rt.close() };
    },
    log,
  );
}

/** `variants`: embedders (their default configuration) or variants of the ablation (features.ts). */
export async function evaluateBusiness(
  variants: readonly (string | Variant)[],
  log: (line: string) => void = () => undefined,
): Promise<BusinessReport> {
  const started = performance.now();
  const date = new Date().toISOString();
  const p = prepare();
  const systems = [await bm25System(p, log)];
  for (const variant of variants.map(asVariant)) {
    const { embedder, feature } = variant;
    const system = await serviceSystem(variant, p, log);
    systems.push(feature ? { ...system, embedder, feature } : system);
  }
  return {
    dataset: describe(p),
    procedure: PROCEDURE,
    systems,
    date,
    commit: headCommit(),
    machine: machine(),
    total_s: round((performance.now() - started) / 1000),
  };
}
