import { Elysia } from "elysia";
import { NotFound, PayloadTooLarge, Unauthorized } from "../errors.ts";
import { existingTenantId, safeEcho } from "../http/auth.ts";
import { readBodyCapped } from "../http/body.ts";
import { sanitiseHeaders } from "../ingest/headers.ts";
import { findSource } from "../sources/registry.ts";
import type { WebhookRequest } from "../sources/types.ts";
import type { Deps } from "./deps.ts";

/**
 * Bodies are read up to this multiple of the limit before the signature check, so the checks keep
 * CONTRACT §7's order (signature before size) while memory stays bounded.
 */
const HARD_CAP_FACTOR = 4;

/** `POST /webhooks/{source}/{tenant_id}`: the checks of CONTRACT §7, in its order, then the tenant actor. */
export const webhookRoutes = (deps: Deps) =>
  new Elysia({ name: "routes.webhooks" }).post(
    "/webhooks/:source/:tenant_id",
    async ({ params, request }) => {
      const source = findSource(params.source);
      if (!source) throw new NotFound(`no webhook source ${safeEcho(params.source)}`);
      const tenantId = existingTenantId(deps.store, params.tenant_id);
      const ctx = deps.ingestor.context(source, tenantId);
      const limit = deps.config.bodyLimitBytes;
      const rawBody = await readBodyCapped(request, limit * HARD_CAP_FACTOR);
      const delivery: WebhookRequest = {
        method: request.method,
        url: request.url,
        headers: request.headers,
        rawBody,
      };
      const verdict = await source.verify(delivery, ctx);
      if (!verdict.ok) throw new Unauthorized(`delivery rejected: ${verdict.reason}`);
      const events = source.parse(delivery, ctx);
      if (rawBody.byteLength > limit) throw new PayloadTooLarge(`body exceeds ${limit} bytes`);
      const items = await deps.ingestor.items(source, tenantId, events, ctx);
      const summary = await deps.tenant(tenantId).ask({
        type: "webhook.ingest",
        delivery: { source: source.id, items, headers: sanitiseHeaders(request.headers) },
      });
      if (!source.respond) return summary;
      const reply = source.respond(summary);
      return new Response(reply.body, { status: reply.status, headers: reply.headers });
    },
    {
      detail: {
        tags: ["webhooks"],
        summary: "Receive a signed event from a source for a tenant",
        security: [],
      },
    },
  );
