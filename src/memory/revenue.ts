import type { Entry } from "../models/entry.ts";
import type { AgentRevenue, RevenueFigures } from "../models/revenue.ts";

/**
 * Revenue per agent (CONTRACT §8), as pure logic over the entries whose `valid_from` lies in the
 * window. Revenue is
 *
 *   Σ amount of `success` outcomes in the window
 * + Σ amount of closed-won deal decisions written by a connector, in the window, that are the
 *   deal's current version and that no outcome names (on this or any earlier version of the deal)
 *
 * per currency, never summed across currencies. A deal is counted once: by its outcome when an
 * agent recorded one, else by its latest closed-won decision. Retracted or corrected entries
 * (`expired_at` set) count for nothing.
 */

/** An outcome's currency when it names none (CONTRACT §5); a decision's too. */
export const DEFAULT_CURRENCY = "USD";
/** Amounts are summed as integers of a millionth, so that 0.1 + 0.2 is 0.3. */
const SCALE = 1_000_000n;
const SCALE_DIGITS = 6;

/** Looks an entry up by id (the decision an outcome names, the version a decision supersedes). */
export type EntryLookup = (id: string) => Entry | undefined;

/**
 * The decisions the tenant's live outcomes name (`named` below). Named by an outcome, not `status:
 * resolved`: a deal's own close resolves its decisions too (actors/tenant/ingest/timeline.ts), and
 * only an outcome takes the deal's place in the figures.
 */
export function decisionsNamed(outcomes: Iterable<Entry>): Set<string> {
  const named = new Set<string>();
  for (const o of outcomes) if (o.expired_at === null && o.decision_id) named.add(o.decision_id);
  return named;
}

interface AgentTally {
  outcomes: number;
  money: Map<string, bigint>;
}

export function revenueFigures(
  inWindow: Iterable<Entry>,
  lookup: EntryLookup,
  named: ReadonlySet<string> = new Set(),
): RevenueFigures {
  const agents = new Map<string, AgentTally>();
  const tally = (agentId: string): AgentTally => {
    let t = agents.get(agentId);
    if (!t) {
      t = { outcomes: 0, money: new Map() };
      agents.set(agentId, t);
    }
    return t;
  };
  for (const entry of inWindow) {
    if (entry.expired_at !== null) continue;
    const agent = tally(entry.agent_id);
    if (entry.category === "outcome") {
      agent.outcomes++;
      const money = entry.result === "success" ? outcomeMoney(entry, lookup) : undefined;
      if (money) add(agent.money, money);
    } else if (isUncountedClosedWonDeal(entry, lookup, named)) {
      add(agent.money, { amount: entry.amount ?? 0, currency: entry.currency ?? DEFAULT_CURRENCY });
    }
  }
  return summarise(agents);
}

interface Money {
  amount: number;
  currency: string;
}

/**
 * A success outcome's money: its own amount; without one, the amount of the decision it resolves
 * (a closed-won deal the agent confirms without repeating the figure is still the deal's revenue).
 */
function outcomeMoney(outcome: Entry, lookup: EntryLookup): Money | undefined {
  if (outcome.amount !== undefined)
    return { amount: outcome.amount, currency: outcome.currency ?? DEFAULT_CURRENCY };
  const decision = outcome.decision_id ? lookup(outcome.decision_id) : undefined;
  if (decision?.amount === undefined) return undefined;
  return { amount: decision.amount, currency: decision.currency ?? DEFAULT_CURRENCY };
}

/** A connector's closed-won decision that is its deal's current version and that no outcome resolves. */
function isUncountedClosedWonDeal(entry: Entry, lookup: EntryLookup, named: ReadonlySet<string>): boolean {
  if (entry.category !== "decision" || entry.stage !== "closed_won") return false;
  if (!entry.created_by.startsWith("connector:")) return false;
  // A later version of the deal (a new amount, a reopened stage) is the one that counts, in its own
  // window: it supersedes this one, or ends it in valid time.
  if (entry.invalidated_at !== null || entry.valid_to !== null) return false;
  return !dealNamed(entry, lookup, named);
}

/** Whether an outcome names this version of the deal or any earlier one (the supersedes chain). */
function dealNamed(decision: Entry, lookup: EntryLookup, named: ReadonlySet<string>): boolean {
  const visited = new Set<string>();
  let version: Entry | undefined = decision;
  while (version && !visited.has(version.id)) {
    if (named.has(version.id)) return true;
    visited.add(version.id);
    version = version.supersedes ? lookup(version.supersedes) : undefined;
  }
  return false;
}

function add(into: Map<string, bigint>, money: Money): void {
  const scaled = BigInt(Math.round(money.amount * Number(SCALE)));
  into.set(money.currency, (into.get(money.currency) ?? 0n) + scaled);
}

function summarise(agents: Map<string, AgentTally>): RevenueFigures {
  const totals = new Map<string, bigint>();
  for (const t of agents.values())
    for (const [currency, v] of t.money) totals.set(currency, (totals.get(currency) ?? 0n) + v);
  const count = agents.size;
  const currencies = [...totals.keys()].sort();
  const single = currencies.length <= 1 ? (currencies[0] ?? DEFAULT_CURRENCY) : null;
  const total = single === null ? null : toNumber(totals.get(single) ?? 0n);
  return {
    currency: single,
    revenue: total,
    agents: count,
    revenue_per_agent: total === null ? null : perAgent(totals.get(single!) ?? 0n, count),
    by_currency: currencies.map((currency) => ({
      currency,
      revenue: toNumber(totals.get(currency)!),
      revenue_per_agent: perAgent(totals.get(currency)!, count),
    })),
    by_agent: [...agents]
      .map(([agent_id, t]) => agentRevenue(agent_id, t, single))
      .sort((a, b) => a.agent_id.localeCompare(b.agent_id)),
  };
}

function agentRevenue(agent_id: string, t: AgentTally, single: string | null): AgentRevenue {
  const by_currency = [...t.money]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, v]) => ({ currency, revenue: toNumber(v) }));
  const revenue = single === null ? null : toNumber(t.money.get(single) ?? 0n);
  return { agent_id, revenue, outcomes: t.outcomes, by_currency };
}

/** Revenue over agents; null when no agent wrote anything in the window (nothing to divide by). */
function perAgent(total: bigint, agents: number): number | null {
  if (agents === 0) return null;
  return round(toNumber(total) / agents);
}

function toNumber(scaled: bigint): number {
  return Number(scaled) / Number(SCALE);
}

function round(value: number): number {
  return Number(value.toFixed(SCALE_DIGITS));
}
