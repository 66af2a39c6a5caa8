/**
 * The context pack's fill ratio (tokens / budget) over a generated tenant: 240 entries of six
 * topics, four categories and lengths from a line to a paragraph, twelve queries, six budgets. It
 * prints the table docs/context-pack.md quotes and holds the pack to holding an entry at every
 * budget and to spending it: at 500 tokens and up, at least 85% on average, whenever enough
 * matches to fill it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Harness, startHarness } from "../helpers/harness.ts";

let h: Harness;
let token: string;

const TOPICS = [
  ["invoice", "Invoice INV-{n} for {who} is due on day {d}; payment by bank transfer"],
  ["renewal", "{who}'s contract renews in month {d} on the {plan} plan"],
  ["outage", "The {svc} service was down for {d} minutes; {who} reported it first"],
  ["shipping", "Order {n} for {who} ships from the {svc} warehouse in {d} days"],
  ["hiring", "{who} interviews for the {svc} team lead on day {d}"],
  ["security", "{who} rotated the {svc} API key after the audit on day {d}"],
] as const;
const WHO = ["Ada", "Bob", "Chen", "Dana", "Emil", "Fay", "Gus", "Hana"];
const SVC = ["billing", "search", "north", "mobile"];
const PLAN = ["starter", "team", "enterprise"];
const PATHS = ["facts", "decisions", "workflows", "exceptions"];
const TAIL = " The account manager noted that the customer prefers written confirmation and a named contact.";

const QUERIES = [
  "invoice payment due",
  "when does Ada's contract renew",
  "which service was down",
  "order shipping warehouse",
  "who interviews for team lead",
  "API key rotation audit",
  "Bob",
  "enterprise plan renewal",
  "billing service",
  "bank transfer invoice for Chen",
  "written confirmation named contact",
  "what happened on day 3",
];
const BUDGETS = [50, 200, 500, 1000, 2000, 5000];

beforeAll(async () => {
  h = await startHarness();
  ({ token } = await h.createTenant());
  for (let i = 0; i < 240; i++) {
    const [, template] = TOPICS[i % TOPICS.length]!;
    const content =
      template
        .replace("{n}", String(1000 + i))
        .replace("{who}", WHO[i % WHO.length]!)
        .replace("{d}", String((i % 27) + 1))
        .replace("{svc}", SVC[i % SVC.length]!)
        .replace("{plan}", PLAN[i % PLAN.length]!) + TAIL.repeat(i % 3);
    const res = await h.call("POST", `/memory/${PATHS[i % PATHS.length]}`, { token, body: { content } });
    expect(res.status).toBe(201);
  }
});
afterAll(() => h.close());

test("the fill ratio per budget, over twelve queries", async () => {
  const rows: string[] = [
    "| budget | mean fill | min fill | mean entries | truncated |",
    "|---:|---:|---:|---:|---:|",
  ];
  for (const budget of BUDGETS) {
    const fills: number[] = [];
    let entries = 0;
    let truncated = 0;
    for (const query of QUERIES) {
      const { status, body } = await h.json("POST", "/memory/context", {
        token,
        body: { query, budget_tokens: budget },
      });
      expect(status).toBe(200);
      expect(body.tokens).toBeLessThanOrEqual(budget);
      // Every query matches: every pack holds an entry, at 50 tokens too.
      expect(body.entries.length).toBeGreaterThanOrEqual(1);
      // A pack that holds every match is full whatever its ratio: only the others are measured.
      if (!body.truncated) continue;
      fills.push(body.tokens / budget);
      entries += body.entries.length;
      truncated++;
    }
    const mean = fills.reduce((a, b) => a + b, 0) / Math.max(1, fills.length);
    if (budget >= 500) expect(mean).toBeGreaterThanOrEqual(0.85);
    rows.push(
      `| ${budget} | ${mean.toFixed(3)} | ${Math.min(...fills).toFixed(3)} | ${(entries / Math.max(1, truncated)).toFixed(1)} | ${truncated}/${QUERIES.length} |`,
    );
  }
  console.log(rows.join("\n"));
});
