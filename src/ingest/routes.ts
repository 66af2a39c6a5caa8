import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { toAppError } from "../http/errors.ts";
import type { HttpKit } from "../http/http-kit.ts";
import type { RateLimiter } from "../http/rate-limit.ts";
import type { TenantParamOption } from "../http/tenant-param.ts";
import { StrictObject } from "../models/common.ts";
import { IngestSummary, IntakeQueued } from "../models/dead-letter.ts";
import { sentAs } from "../models/media-type.ts";
import { problems } from "../models/problem.ts";
import { HeldAnswer } from "../models/webhook-operations.ts";
import { findSource, SOURCE_IDS } from "../sources/registry.ts";
import { unknownSource } from "../webhooks/unknown-source.ts";
import type { IngestPipeline } from "./deliver.ts";
import type { IngestSummary as Summary } from "./ingest-item.ts";

export interface IngestRouteDeps {
  http: Pick<HttpKit, "tenantParam">;
  /** The pipeline: verification, mapping, the tenant actor's write, and the refusal counters. */
  ingest: Pick<IngestPipeline, "webhook" | "counters">;
  /** Per-tenant rate limits: a delivery is admitted before its body is read. */
  rateLimiter: Pick<RateLimiter, "admit">;
}

/**
 * The path parameters as documented. `enum` lists the 22 source ids for the OpenAPI document; TypeBox
 * does not enforce it on a string, and that is intended: an unknown source is a 404 from the route
 * (CONTRACT §7 checks the source first), not a 422 from parameter validation. A malformed tenant id
 * is likewise a 404 from the route.
 */
const WebhookParams = Type.Object({
  source: Type.String({ enum: [...SOURCE_IDS], description: "One of the 22 webhook source ids" }),
  tenant_id: Type.String({ description: "The tenant's ULID" }),
});

/**
 * What a delivery is answered with: the summary (a handshake that writes nothing, like code_host's
 * ping or calendar's sync, answers an empty one), or what the platform expects instead.
 */
const WebhookAnswer = Type.Union(
  [
    IngestSummary,
    StrictObject(
      {
        plainToken: Type.String(),
        encryptedToken: Type.String({ description: "hex HMAC-SHA256 of plainToken" }),
      },
      { description: "meetings: the answer to endpoint.url_validation" },
    ),
    sentAs(
      "text/xml",
      Type.String({
        description: "crm: the SOAP acknowledgement; the summary is in the X-Memory-Summary header",
      }),
    ),
    sentAs("text/plain", Type.String({ description: "office_graph: ?validationToken= echoed" })),
  ],
  { description: "The delivery's summary, or the answer its platform expects (docs/webhooks.md)" },
);

/** The source's own payload, as it signs it: JSON for most, a form (telephony), SOAP XML (crm). */
const WEBHOOK_BODY = {
  description: "The source's native delivery, signed as the source signs it (docs/webhooks.md)",
  required: false,
  content: {
    "application/json": {
      schema: {
        description:
          "An event object, or an array of event objects (at most 1,000); each source reads its own fields and envelope (a body that is not its form is a 400; the calendar, whose notification is its X-Goog-* headers, ignores a JSON body that is not an Events resource)",
        anyOf: [{ type: "object" }, { type: "array", items: { type: "object" }, maxItems: 1000 }] as Array<
          { type: "object" } | { type: "array"; items: { type: "object" }; maxItems: number }
        >,
      },
    },
    "application/x-www-form-urlencoded": {
      schema: { type: "object", additionalProperties: { type: "string" } },
    },
    "text/xml": { schema: { type: "string" } },
  },
} as const;

/** Runs a delivery, counting a refusal (401, 404, 413, 503…) against its source before it goes out. */
async function countRefusals<T>(
  deps: IngestRouteDeps,
  source: string,
  delivery: () => Promise<T>,
): Promise<T> {
  try {
    return await delivery();
  } catch (error) {
    deps.ingest.counters.rejected(source, toAppError(error).status);
    throw error;
  }
}

/** The delivery's source, or a 404 (not counted: there is no source to count it against). */
function sourceOf({ params }: { params: Record<string, string> }) {
  const source = findSource(params.source ?? "");
  if (!source) throw unknownSource(params.source ?? "", SOURCE_IDS);
  return { source };
}

/** Any tenant; its refusal (404) counts against the delivery's source, as every other refusal does. */
function tenantOfDelivery(deps: IngestRouteDeps): TenantParamOption {
  return {
    scope: "any",
    onRefusal: (error, params) => deps.ingest.counters.rejected(sourceOf({ params }).source.id, error.status),
  };
}

/** `POST /webhooks/{source}/{tenant_id}`: the source and tenant are checked here, the rest in the ingest pipeline. */
export const ingestRoutes = (deps: IngestRouteDeps) =>
  new Elysia({ name: "routes.webhooks" })
    .use(deps.http.tenantParam)
    .macro({ webhookSource: { resolve: sourceOf } })
    .post(
      "/webhooks/:source/:tenant_id",
      async ({ source, tenant, request }) => {
        const answer = await countRefusals(deps, source.id, async () => {
          // Before the body is read: a limited delivery is answered 429 with nothing written or
          // dead-lettered, so the platform delivers it again after Retry-After.
          const refused = deps.rateLimiter.admit(tenant.tenant_id, "webhook", source.id);
          if (refused) await refused;
          return deps.ingest.webhook(source, tenant.tenant_id, request);
        });
        if (!("status" in answer)) return answer;
        // A source's own answer (SOAP ack, handshake) goes out as a Response, as it is. Elysia types an
        // async handler's result as the schema's type or a Response, not a union of both: hence the cast.
        return new Response(answer.body, {
          status: answer.status,
          headers: answer.headers,
        }) as unknown as Summary;
      },
      {
        // The source first (CONTRACT §7), then the tenant.
        webhookSource: true,
        tenant: tenantOfDelivery(deps),
        params: WebhookParams,
        response: {
          200: WebhookAnswer,
          // Held: the source is paused for this tenant (docs/webhook-operations.md). Queued: answered
          // by the cluster router when the owner has not applied the delivery within its wait.
          202: Type.Union([HeldAnswer, IntakeQueued]),
          ...problems(400, 401, 404, 413, 429, 503, 507),
        },
        detail: {
          tags: ["webhooks"],
          summary: "Receive a signed event from a source for a tenant",
          // The body is read raw (its signature covers the bytes), so it has no schema on the route.
          requestBody: WEBHOOK_BODY,
          security: [],
        },
      },
    );
