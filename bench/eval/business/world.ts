/**
 * The business world of the evaluation: companies with a contact, deals moving through stages,
 * support tickets opened, escalated and solved, paying customers with subscriptions, paid and
 * failed invoices, and agents' notes, discounts (some superseded) and facts (some corrected).
 * Everything is drawn from one seeded PRNG and invented tables, so the set is the same on every
 * machine and owes nothing to any corpus. timeline.ts turns it into webhook events and writes.
 */

import { PEOPLE, SURNAMES } from "../dataset/names.ts";
import { Rng } from "../dataset/prng.ts";

export const BUSINESS_SEED = 20_261_201;
export const DAY = 86_400_000;
/** The six months the events happen in. */
export const START = Date.UTC(2026, 4, 1);

const FIRST_PARTS = [
  "Norwick",
  "Castelvane",
  "Brightmoor",
  "Halvard",
  "Quillby",
  "Ostermark",
  "Fenwold",
  "Larkspur",
  "Marrowdale",
  "Thistlecombe",
  "Corvelle",
  "Ashgrove",
  "Pellucid",
  "Vantorre",
  "Hollin",
  "Redfern",
  "Sablewick",
  "Tamberlow",
  "Wrenfield",
  "Oakhaven",
  "Dunmere",
  "Kestrelby",
  "Silvander",
  "Blackthorn",
  "Evershaw",
  "Glenmoor",
  "Harrowgate",
  "Ironvale",
  "Juniper",
  "Kingsrow",
] as const;
const SECOND_PARTS = [
  "Labs",
  "Foods",
  "Logistics",
  "Analytics",
  "Textiles",
  "Robotics",
  "Health",
  "Media",
  "Energy",
  "Studios",
] as const;
const INDUSTRIES = [
  "software",
  "food",
  "logistics",
  "retail",
  "manufacturing",
  "healthcare",
  "media",
  "energy",
];
const PRODUCTS = ["platform renewal", "analytics expansion", "pilot", "enterprise upgrade", "support plan"];
export const STAGES = [
  "appointmentscheduled",
  "qualifiedtobuy",
  "presentationscheduled",
  "decisionmakerboughtin",
  "contractsent",
] as const;
const PROBLEMS: readonly (readonly [string, string])[] = [
  ["Export to CSV fails", "the CSV export stops after the first thousand rows"],
  ["Cannot log in to the mobile app", "nobody on the team can sign in on the phone app since the update"],
  ["Invoice PDF shows the wrong address", "the billing address on the PDF is the old office"],
  ["Calendar sync stops", "meetings stopped appearing in the shared calendar"],
  ["Dashboard loads slowly", "the main dashboard takes a minute to open every morning"],
  ["Bulk upload returns an error", "uploading the product list fails with a server error"],
  ["Password reset mail never arrives", "the reset e-mail does not reach their inbox"],
  ["Wrong currency on the quote", "the quote shows dollars instead of euros"],
];
const PLANS = ["Starter monthly", "Team annual", "Pro monthly", "Enterprise annual"];
const PREFERENCES = [
  "quarterly invoicing",
  "calls on Tuesdays",
  "written summaries",
  "a single point of contact",
];
const CITIES = ["Lyon", "Porto", "Ghent", "Tampere", "Bologna", "Graz", "Bilbao", "Aarhus", "Krakow", "Cork"];

export interface Person {
  first: string;
  last: string;
  email: string;
}

export interface Deal {
  id: number;
  name: string;
  amount: number;
  /** Stage changes in event time; the last may be closedwon or closedlost. */
  stages: { stage: string; at: number }[];
  /** Index in `stages` of the change delivered late (after the next one, and once more as a retry). */
  late?: number;
}

export interface Ticket {
  id: number;
  subject: string;
  description: string;
  openedAt: number;
  escalatedAt?: number;
  solvedAt?: number;
}

export interface Billing {
  customer: string;
  plan: string;
  /** Subscription changes in event time. */
  subscriptions: { status: string; plan: string; at: number }[];
  payments: { id: string; amount: number; at: number }[];
  failures: { id: string; number: string; amount: number; at: number }[];
}

export interface AgentNotes {
  note: { preference: string; at: number };
  /** A discount offered, and the one that replaced it (supersedes) if it changed. */
  discounts: { percent: number; at: number }[];
  /** Headquarters as first noted, and as corrected (corrects) after the as_of moment. */
  headquarters?: { wrong: string; right: string; at: number };
}

export interface Company {
  index: number;
  name: string;
  domain: string;
  industry: string;
  objectId: number;
  createdAt: number;
  contact: Person & { objectId: number };
  deals: Deal[];
  tickets: Ticket[];
  billing?: Billing;
  agent: AgentNotes;
}

export interface BusinessWorld {
  companies: Company[];
  /** The marketing CRM app the events are sent for. */
  appId: number;
  portalId: number;
}

const alnum = (rng: Rng, n: number) =>
  Array.from(
    { length: n },
    () => "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789"[rng.int(0, 57)],
  ).join("");

function companyNames(rng: Rng, count: number): string[] {
  const firsts = rng.shuffle(FIRST_PARTS).slice(0, count);
  return firsts.map((first) => `${first} ${rng.pick(SECOND_PARTS)}`);
}

function dealOf(rng: Rng, name: string, id: number, from: number, reorder: boolean): Deal {
  const open = rng.int(2, STAGES.length);
  const stages: Deal["stages"] = [];
  let at = from + rng.int(1, 20) * DAY;
  for (const stage of STAGES.slice(0, open)) {
    stages.push({ stage, at });
    at += rng.int(5, 18) * DAY + rng.int(0, 23) * 3_600_000;
  }
  const ending = rng.weighted({ open: 35, closedwon: 40, closedlost: 25 });
  if (ending !== "open") stages.push({ stage: ending!, at });
  // The change before the last is the one a platform retries after the last (reordered delivery).
  const late = reorder && stages.length >= 2 ? stages.length - 2 : undefined;
  return { id, name, amount: rng.int(5, 120) * 1000, stages, late };
}

function ticketsOf(rng: Rng, company: Company, mustEscalate: boolean, next: () => number): Ticket[] {
  const count = mustEscalate ? rng.int(1, 3) : rng.int(0, 3);
  return Array.from({ length: count }, (_, i) => {
    const [subject, detail] = rng.pick(PROBLEMS);
    const openedAt = company.createdAt + rng.int(10, 160) * DAY + rng.int(0, 23) * 3_600_000;
    // The escalation the two-source questions ask about is still open: its ticket is not solved.
    const open = mustEscalate && i === 0;
    const escalate = open || rng.chance(0.2);
    const solve = !open && rng.chance(0.6);
    const escalatedAt = escalate ? openedAt + rng.int(1, 4) * DAY : undefined;
    const solvedAt = solve ? (escalatedAt ?? openedAt) + rng.int(1, 9) * DAY : undefined;
    const who = `${company.contact.first} ${company.contact.last}`;
    return {
      id: next(),
      subject,
      description: `${who} of ${company.name} reports that ${detail}.`,
      openedAt,
      escalatedAt,
      solvedAt,
    };
  });
}

function billingOf(rng: Rng, company: Company, mustFail: boolean): Billing {
  const plan = rng.pick(PLANS);
  const customer = `cus_${alnum(rng, 14)}`;
  const start = company.createdAt + rng.int(5, 30) * DAY;
  const subscriptions = [{ status: "active", plan, at: start }];
  const payments: Billing["payments"] = [];
  const failures: Billing["failures"] = [];
  const months = rng.int(2, 5);
  const fee = rng.int(3, 40) * 100;
  for (let m = 1; m <= months; m++) {
    const at = start + m * 30 * DAY;
    if ((mustFail && m === months) || (!mustFail && m === months && rng.chance(0.2))) {
      failures.push({
        id: `in_${alnum(rng, 12)}`,
        number: `INV-${1000 + company.index * 10 + m}`,
        amount: fee,
        at,
      });
      subscriptions.push({ status: "past_due", plan, at: at + DAY });
    } else payments.push({ id: `pi_${alnum(rng, 12)}`, amount: fee, at });
  }
  if (!failures.length && rng.chance(0.3)) {
    const upgrade = PLANS[(PLANS.indexOf(plan) + 1) % PLANS.length]!;
    subscriptions.push({ status: "active", plan: upgrade, at: start + (months * 30 + 5) * DAY });
  }
  return { customer, plan, subscriptions, payments, failures };
}

function agentNotes(rng: Rng, company: Company): AgentNotes {
  const at = company.createdAt + 3 * DAY;
  const discounts: AgentNotes["discounts"] = [];
  if (rng.chance(0.7)) {
    const first = rng.pick([5, 10, 12]);
    discounts.push({ percent: first, at: at + rng.int(10, 40) * DAY });
    if (rng.chance(0.5)) discounts.push({ percent: first + 5, at: discounts[0]!.at + rng.int(20, 60) * DAY });
  }
  const cities = rng.shuffle(CITIES);
  const headquarters = rng.chance(0.35) ? { wrong: cities[0]!, right: cities[1]!, at: at + DAY } : undefined;
  return { note: { preference: rng.pick(PREFERENCES), at }, discounts, headquarters };
}

/**
 * The world of `companies` companies (30 by default): two deals each, one deal in five with a
 * reordered delivery, 0–3 tickets, two in three companies paying customers; the first twelve
 * companies have both a failed invoice and an escalated ticket (the two-source questions).
 */
export function businessWorld(companies = 30, seed = BUSINESS_SEED): BusinessWorld {
  const rng = new Rng(seed);
  let ticketId = 5000;
  let dealId = 9_000_100;
  const names = companyNames(rng, companies);
  const world: BusinessWorld = { companies: [], appId: 4_400_123, portalId: 62_515 };
  names.forEach((name, index) => {
    const [first] = rng.pick(PEOPLE);
    const last = rng.pick(SURNAMES);
    const domain = `${name.split(" ")[0]!.toLowerCase()}.example`;
    const createdAt = START + rng.int(0, 20) * DAY;
    const company: Company = {
      index,
      name,
      domain,
      industry: rng.pick(INDUSTRIES),
      objectId: 7_000_000 + index,
      createdAt,
      contact: {
        first,
        last,
        email: `${first.toLowerCase()}.${last.toLowerCase()}@${domain}`,
        objectId: 8_000_000 + index,
      },
      deals: [],
      tickets: [],
      agent: { note: { preference: "", at: 0 }, discounts: [] },
    };
    const both = index < 12;
    // Two different products: a deal's name tells it from the company's other deal.
    company.deals = rng
      .shuffle(PRODUCTS)
      .slice(0, 2)
      .map((product) => {
        dealId += 1;
        return dealOf(rng, `${name} ${product}`, dealId, createdAt, dealId % 5 === 0);
      });
    company.tickets = ticketsOf(rng, company, both, () => ++ticketId);
    if (both || rng.chance(0.5)) company.billing = billingOf(rng, company, both);
    company.agent = agentNotes(rng, company);
    world.companies.push(company);
  });
  return world;
}
