import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import type { HttpKit } from "../http/http-kit.ts";
import { sentAs } from "../models/media-type.ts";
import { problems } from "../models/problem.ts";
import type { Telemetry } from "../telemetry/telemetry.ts";

/** The Prometheus text exposition format, version 0.0.4 (what every Prometheus server scrapes). */
export const PROMETHEUS_TEXT = "text/plain; version=0.0.4";

const Exposition = sentAs(
  PROMETHEUS_TEXT,
  Type.String({
    description: "Every metric of this node in the Prometheus text format (docs/observability.md)",
  }),
);

export interface MetricsRouteDeps {
  http: HttpKit;
  /** The telemetry port's exposition is this module's whole service: the registry, rendered. */
  metrics: Pick<Telemetry, "contentType" | "scrape">;
}

/**
 * `GET /metrics`: this node's metrics for Prometheus, which scrapes with the operator's token as a
 * bearer token (docs/observability.md, "Scraping"). Bounded labels only: per-tenant figures are on
 * the JSON admin routes.
 */
export const metricsRoutes = ({ http, metrics }: MetricsRouteDeps) =>
  new Elysia({ name: "routes.metrics" }).use(http.authPlugin).get(
    "/metrics",
    async ({ set }) => {
      set.headers["content-type"] = metrics.contentType;
      set.headers["cache-control"] = "no-store";
      return metrics.scrape();
    },
    {
      auth: "admin",
      response: { 200: Exposition, ...problems(401, 403) },
      detail: {
        tags: ["admin"],
        summary: "Prometheus metrics of this node (operator token as a bearer token)",
      },
    },
  );
