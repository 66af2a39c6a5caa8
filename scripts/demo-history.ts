/**
 * What `bun run demo` (scripts/demo.ts) writes on each day of its history, per tenant: a varying
 * number of facts, a deal decision and its outcome on some days (revenue per agent), a workflow,
 * relationships, an exception, messaging-bridge events (a message a ✅ turns into a decision, a
 * dead letter left open, one replayed once its message arrives) and, on the last day, a refused
 * request. Deterministic: the same days give the same history.
 */
import type { BridgeEvent } from "../src/bridge/events.ts";

export const TENANTS = ["Acme Corp", "Globex Logistics"];

export interface PlannedWrite {
  /** `/memory/{path}` */
  path: string;
  body: Record<string, unknown>;
  /** An outcome to record about the entry just written (its id given). */
  outcome?: (id: string) => Record<string, unknown>;
}

export interface DayPlan {
  writes: PlannedWrite[];
  bridge: BridgeEvent[];
  /** Dead letters to replay once the day's events are in (by event id). */
  replay: string[];
  /** A tenant token sent to an operator route: refused and recorded. */
  denied: boolean;
}

const FACTS = [
  "pays invoices net 30",
  "prefers a call before any price change",
  "ships from the Rotterdam warehouse",
  "renews its contract every January",
  "asked for the API sandbox again",
  "moved procurement to a new buyer",
  "runs a quarterly business review",
];
const AGENTS = ["agent-anna", "agent-ben", "agent-chen"];
const CHANNEL = "C-deals";

/** The plan of day `day` (0 = the oldest) of `days`, for tenant number `tenant`. */
export function dayPlan(day: number, days: number, tenant: number): DayPlan {
  const company = TENANTS[tenant]!;
  const agent = AGENTS[(day + tenant) % AGENTS.length]!;
  const writes: PlannedWrite[] = [];
  const facts = 1 + ((day * 7 + tenant * 3) % 4);
  for (let n = 0; n < facts; n++)
    writes.push({
      path: "facts",
      body: {
        content: `${company} ${FACTS[(day + n + tenant) % FACTS.length]} (day ${day + 1}, note ${n + 1})`,
        agent_id: agent,
        tags: ["account"],
      },
    });
  if ((day + tenant) % 2 === 0) {
    const amount = 1000 * (2 + ((day * 5 + tenant) % 7));
    writes.push({
      path: "decisions",
      body: {
        content: `Offer ${company} a ${5 + (day % 3) * 5}% renewal discount`,
        amount,
        currency: "USD",
        agent_id: agent,
      },
      outcome: (id) => ({
        content: `${company} signed the renewal`,
        decision_id: id,
        result: "success",
        agent_id: agent,
      }),
    });
  }
  if (day === 0)
    writes.push({
      path: "workflows",
      body: {
        content: `Onboarding ${company}`,
        steps: ["kick-off call", "sandbox keys", "first invoice"],
        agent_id: agent,
      },
    });
  if (day % 2 === 1)
    writes.push({
      path: "relationships",
      body: {
        content: `${AGENTS[day % 3]} owns the ${company} account`,
        subject: AGENTS[day % 3],
        predicate: "owns",
        object: company,
      },
    });
  if (day === Math.min(2, days - 1))
    writes.push({
      path: "exceptions",
      body: { content: `${company}'s invoice bounced`, severity: "medium", agent_id: agent },
    });
  return { writes, ...bridgeDay(day, days, tenant), denied: day === days - 1 };
}

/**
 * The bridge's share of a day: on the first, a message and the ✅ that makes it a decision; on the
 * second (or the first of a one-day history), a ✅ on a message that never arrives (a dead letter
 * left open); on the third, a ✅ before its message (dead-lettered), the message, then the replay.
 */
function bridgeDay(day: number, days: number, tenant: number): Pick<DayPlan, "bridge" | "replay"> {
  const bridge: BridgeEvent[] = [];
  const replay: string[] = [];
  const ts = (n: number) => `${1_763_700_000 + day * 86_400 + tenant * 100 + n}.000100`;
  const message = (n: number, text: string) =>
    ({ type: "message", channel: CHANNEL, user: "U-anna", text, ts: ts(n) }) as BridgeEvent;
  const tick = (n: number) =>
    ({
      type: "reaction_added",
      user: "U-ben",
      reaction: "white_check_mark",
      item: { channel: CHANNEL, ts: ts(n) },
    }) as BridgeEvent;
  if (day === 0) bridge.push(message(1, "Let's ship the pilot to the Rotterdam team first"), tick(1));
  if (day === Math.min(1, days - 1)) bridge.push(tick(2));
  if (day === Math.min(2, days - 1)) {
    bridge.push(tick(3), message(3, "Approve the extended trial for one more month"));
    replay.push(`${CHANNEL}:${ts(3)}:reaction_added`);
  }
  return { bridge, replay };
}
