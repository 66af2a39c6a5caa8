/**
 * The questions an agent asks of the business memory, six kinds, each with its gold entries (by
 * step key, timeline.ts) and, where the memory can hold an older or closed version of the answer,
 * the entries that must not rank above it (`stale`).
 */
import type { Step } from "./timeline.ts";
import type { BusinessWorld, Company } from "./world.ts";

export const KINDS = [
  "current_state",
  "open_cases",
  "open_cases_text",
  "paraphrase",
  "know_about",
  "two_source",
  "past_state",
] as const;
export type Kind = (typeof KINDS)[number];

export interface BusinessQuestion {
  kind: Kind;
  question: string;
  company: number;
  gold: string[];
  /** Two-source questions: each group must have an entry in the first 10. */
  groups?: string[][];
  /** Older, superseded or closed entries of the same object: ranked above the answer, they mislead. */
  stale?: string[];
  /** Valid time asked at (epoch ms). */
  validAt?: number;
  /** Asked as the memory stood before the corrections were written. */
  beforeCorrections?: true;
  /** Asked with the search's `status` filter (and these categories and tags), as the API means it. */
  status?: "open";
  categories?: string[];
  tags?: string[];
}

const day = (ms: number) =>
  new Date(ms).toLocaleDateString("en-GB", {
    day: "numeric",
    month: "long",
    year: "numeric",
    timeZone: "UTC",
  });

function currentState(c: Company): BusinessQuestion[] {
  const out: BusinessQuestion[] = c.deals.map((deal) => {
    const keys = deal.stages.map((_, k) => `deal:${deal.id}:${k}`);
    return {
      kind: "current_state",
      question: `What stage is the ${deal.name} deal in?`,
      company: c.index,
      gold: keys.slice(-1),
      stale: keys.slice(0, -1),
    };
  });
  const discounts = c.agent.discounts.map((_, k) => `discount:${c.index}:${k}`);
  if (discounts.length)
    out.push({
      kind: "current_state",
      question: `What discount are we offering ${c.name}?`,
      company: c.index,
      gold: discounts.slice(-1),
      stale: discounts.slice(0, -1),
    });
  return out;
}

function openCases(c: Company): BusinessQuestion[] {
  const open = c.tickets.filter((t) => !t.solvedAt);
  if (!open.length) return [];
  const keys = (t: Company["tickets"][number]) =>
    [
      `ticket:${t.id}:opened`,
      t.escalatedAt && `ticket:${t.id}:escalated`,
      t.solvedAt && `ticket:${t.id}:solved`,
    ].filter((k): k is string => typeof k === "string");
  const asked = {
    question: `Which support cases of ${c.name} are still open?`,
    company: c.index,
    gold: open.flatMap(keys),
    stale: c.tickets.filter((t) => t.solvedAt).flatMap(keys),
  };
  // The same question twice: as one call with the status filter (item 3 of issue 29: "open
  // problems" is one call) on the helpdesk's own tag for its tickets (docs/source-mappings.md), and
  // as plain text, so what the text alone finds stays visible. An open ticket never escalated has
  // only its "was opened" workflow, which carries no status: the filter cannot find it.
  return [
    { kind: "open_cases", ...asked, status: "open", categories: ["exception"], tags: ["ticket"] },
    { kind: "open_cases_text", ...asked },
  ];
}

function paraphrases(c: Company): BusinessQuestion[] {
  const b = c.billing;
  if (!b) return [];
  const out: BusinessQuestion[] = [];
  const ask = (question: string, gold: string[], stale?: string[]) =>
    out.push({ kind: "paraphrase", question, company: c.index, gold, stale });
  if (b.payments.length)
    ask(
      `Has ${c.name} paid us?`,
      b.payments.map((p) => `pay:${p.id}`),
    );
  const subs = b.subscriptions.map((_, k) => `sub:${b.customer}:${k}`);
  if (b.failures.length)
    ask(
      `Is ${c.name} behind on an invoice?`,
      b.failures.map((f) => `fail:${f.id}`),
    );
  else ask(`What plan is ${c.name} subscribed to?`, subs.slice(-1), subs.slice(0, -1));
  ask(`Did ${c.name} buy from us?`, [...subs, ...b.payments.map((p) => `pay:${p.id}`)]);
  return out;
}

function knowAbout(c: Company, steps: readonly Step[]): BusinessQuestion {
  const gold = steps.filter((s) => s.meta.company === c.index && s.meta.role !== "retry").map((s) => s.key);
  return { kind: "know_about", question: `What do we know about ${c.name}?`, company: c.index, gold };
}

function twoSource(c: Company): BusinessQuestion[] {
  const failed = (c.billing?.failures ?? []).map((f) => `fail:${f.id}`);
  // Open escalations: a solved ticket's escalation is history, not trouble now.
  const escalated = c.tickets
    .filter((t) => t.escalatedAt && !t.solvedAt)
    .map((t) => `ticket:${t.id}:escalated`);
  if (!failed.length || !escalated.length) return [];
  return [
    {
      kind: "two_source",
      question: `Does ${c.name} have billing trouble and an escalated support ticket?`,
      company: c.index,
      gold: [...failed, ...escalated],
      groups: [failed, escalated],
    },
  ];
}

function pastState(c: Company): BusinessQuestion[] {
  const out: BusinessQuestion[] = [];
  const deal = c.deals.find((d) => d.stages.length >= 3);
  if (deal) {
    const keys = deal.stages.map((_, k) => `deal:${deal.id}:${k}`);
    // An interval closed by the next change; the reordered one where the deal has it.
    const k = deal.late ?? c.index % (deal.stages.length - 1);
    const validAt = Math.round((deal.stages[k]!.at + deal.stages[k + 1]!.at) / 2);
    out.push({
      kind: "past_state",
      question: `What stage was the ${deal.name} deal in on ${day(validAt)}?`,
      company: c.index,
      gold: [keys[k]!],
      stale: keys.filter((_, i) => i !== k),
      validAt,
    });
  }
  const [first, second] = c.agent.discounts;
  if (first && second) {
    const validAt = Math.round((first.at + second.at) / 2);
    out.push({
      kind: "past_state",
      question: `What discount were we offering ${c.name} on ${day(validAt)}?`,
      company: c.index,
      gold: [`discount:${c.index}:0`],
      stale: [`discount:${c.index}:1`],
      validAt,
    });
  }
  if (c.agent.headquarters)
    out.push({
      kind: "past_state",
      question: `Where did we have ${c.name}'s headquarters before the correction?`,
      company: c.index,
      gold: [`hq:${c.index}:wrong`],
      beforeCorrections: true,
    });
  return out;
}

export function businessQuestions(world: BusinessWorld, steps: readonly Step[]): BusinessQuestion[] {
  return world.companies.flatMap((c) => [
    ...currentState(c),
    ...openCases(c),
    ...paraphrases(c),
    knowAbout(c, steps),
    ...twoSource(c),
    ...pastState(c),
  ]);
}
