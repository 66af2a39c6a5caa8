import { NotFound, ValidationFailed } from "../errors.ts";
import { existingTenantId } from "../http/auth.ts";
import { DEAD_LETTER_STATUSES, type DeadLetter } from "../models/dead-letter.ts";
import { findSource } from "../sources/registry.ts";
import { adminBase } from "./admin-guard.ts";
import type { Deps } from "./deps.ts";
import { limitOf } from "./query.ts";

/** Event ids come from sources and are clipped to 512 characters there; the lookup is an exact key match. */
const MAX_EVENT_ID = 512;

/** Dead letters and their replay (admin only). Replay maps the stored payload again, with no signature check. */
export const adminWebhookRoutes = (deps: Deps) =>
  adminBase(deps, "routes.admin.webhooks", "/admin/webhooks")
    .get(
      "/dead-letters/:tenant_id",
      async ({ params, query }) => {
        const tenantId = existingTenantId(deps.store, params.tenant_id);
        const status = statusOf(query.status);
        const limit = limitOf(query, 100, 1000);
        return { dead_letters: await deps.tenant(tenantId).ask({ type: "deadletter.list", status, limit }) };
      },
      { detail: { tags: ["admin"], summary: "List dead-lettered webhook events" } },
    )
    .post(
      "/replay/:tenant_id/:event_id",
      async ({ params, query }) => {
        const tenantId = existingTenantId(deps.store, params.tenant_id);
        const eventId = params.event_id;
        if (eventId.length < 1 || eventId.length > MAX_EVENT_ID) throw new NotFound("no such dead letter");
        const tenant = deps.tenant(tenantId);
        const record = await tenant.ask({
          type: "deadletter.get",
          eventId,
          source: sourceParam(query.source),
        });
        const source = findSource(record.source);
        if (!source) throw new NotFound(`source ${record.source} is no longer known`);
        const ctx = deps.ingestor.replayContext(source, tenantId);
        const event = { event_id: record.event_id, event_type: record.event_type, payload: record.payload };
        const [item] = await deps.ingestor.items(source, tenantId, [event], ctx, true);
        return tenant.ask({ type: "deadletter.resolve", eventId, source: record.source, item: item! });
      },
      { detail: { tags: ["admin"], summary: "Replay one dead-lettered event" } },
    );

/** `?source=`: which source's dead letter, when two sources used the same event id. */
function sourceParam(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!findSource(raw))
    throw new ValidationFailed("source is not a known webhook source", [
      { path: "/source", message: "unknown" },
    ]);
  return raw;
}

function statusOf(raw: string | undefined): DeadLetter["status"] | undefined {
  if (raw === undefined) return undefined;
  if (!(DEAD_LETTER_STATUSES as readonly string[]).includes(raw)) {
    throw new ValidationFailed("status must be dead or replayed", [
      { path: "/status", message: "dead | replayed" },
    ]);
  }
  return raw as DeadLetter["status"];
}
