import { type Static, Type } from "@sinclair/typebox";
import { IsoTime, QueryObject, StrictObject, Timestamp } from "./common.ts";
import { named } from "./schema-name.ts";

/** A metric window in epoch ms: [from, to). */
export interface Window {
  from: number;
  to: number;
}

const Amount = Type.Number();
const CurrencyCode = Type.String({ description: "ISO 4217" });

/** One currency's revenue: currencies are never summed together. */
export const CurrencyRevenue = named(
  "CurrencyRevenue",
  StrictObject({
    currency: CurrencyCode,
    revenue: Amount,
    revenue_per_agent: Type.Union([Amount, Type.Null()]),
  }),
);

export const AgentRevenue = named(
  "AgentRevenue",
  StrictObject({
    agent_id: Type.String(),
    revenue: Type.Union([Amount, Type.Null()], {
      description: "null when the window's revenue came in several currencies: see by_currency",
    }),
    outcomes: Type.Integer({ minimum: 0, description: "outcomes the agent recorded in the window" }),
    by_currency: Type.Array(StrictObject({ currency: CurrencyCode, revenue: Amount })),
  }),
);

/** The figures of a window; the route adds which tenant and which window. */
export const RevenueFigures = named(
  "RevenueFigures",
  StrictObject({
    currency: Type.Union([CurrencyCode, Type.Null()], {
      description: "the window's one currency (USD when there was no revenue); null when mixed",
    }),
    revenue: Type.Union([Amount, Type.Null()]),
    agents: Type.Integer({
      minimum: 0,
      description: "distinct agent_ids that wrote any entry in the window",
    }),
    revenue_per_agent: Type.Union([Amount, Type.Null()]),
    by_currency: Type.Array(CurrencyRevenue),
    by_agent: Type.Array(AgentRevenue),
  }),
);
export type RevenueFigures = Static<typeof RevenueFigures>;
export type AgentRevenue = Static<typeof AgentRevenue>;

/** `GET /admin/metrics/revenue-per-agent/{tenant_id}` (CONTRACT §8). */
export const RevenueReport = named(
  "RevenueReport",
  StrictObject({
    tenant_id: Type.String(),
    from: IsoTime,
    to: IsoTime,
    ...RevenueFigures.properties,
  }),
);
export type RevenueReport = Static<typeof RevenueReport>;

export const RevenueQuery = QueryObject({
  from: Type.Optional({
    ...Timestamp,
    description:
      "window start, inclusive (default: 30 days before `to`); before `to`, and not before year 0000 (422 otherwise)",
  }),
  to: Type.Optional({ ...Timestamp, description: "window end, exclusive (default: now)" }),
});
