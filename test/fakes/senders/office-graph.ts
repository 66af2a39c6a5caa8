import { randomUUID } from "node:crypto";
import type { PlatformSender, Signed } from "./sender.ts";

/**
 * Microsoft Graph signs nothing: each notification of a delivery carries the `clientState` given
 * when the subscription was created. "Signing" is putting it into every notification.
 */
export const GRAPH_CLIENT_STATE = "graph-client-state-4f9c2e7a1b";
export const GRAPH_TENANT = "84bd8158-6d4d-4958-8b9f-9d6445542f95";
const USER = "3c1f6e1a-8d2b-4c55-a1e9-5f0b7d2c9a41";

/** The delivery as Graph posts it: the body with `clientState` set in every notification. */
export function withClientState(body: string, clientState: string): string {
  const parsed = JSON.parse(body) as { value: Array<Record<string, unknown>> };
  return JSON.stringify({ ...parsed, value: parsed.value.map((n) => ({ ...n, clientState })) });
}

export const officeGraphSender: PlatformSender = {
  source: "office_graph",
  secrets: { OFFICE_GRAPH_CLIENT_STATE: GRAPH_CLIENT_STATE },
  signsBody: false,
  sign(body: string): Signed {
    return {
      headers: { "content-type": "application/json; charset=utf-8" },
      body: withClientState(body, GRAPH_CLIENT_STATE),
    };
  },
  // The clientState lives in the body: hostile bytes carry none (or a forged one) and are posted as they are.
  signRaw: (body: Uint8Array) => ({ headers: { "content-type": "application/json; charset=utf-8" }, body }),
};

const expiry = "2026-11-24T10:00:00.0000000Z";
const longId = () => `AAMkAGI2TG93AAA${randomUUID().replaceAll("-", "")}=`;
const etag = () => `W/"CQAAABYAAADkrWGo7bouTKlsgTZMr9Kw${randomUUID().slice(0, 8)}"`;

/** A change notification as Graph documents it (no clientState: the sender adds it). */
export function changeNotification(
  kind: "Message" | "Event",
  changeType: "created" | "updated" | "deleted",
  opts: { subscriptionId?: string; id?: string; user?: string } = {},
): Record<string, unknown> {
  const id = opts.id ?? longId();
  const user = opts.user ?? USER;
  const collection = kind === "Message" ? "Messages" : "Events";
  return {
    subscriptionId: opts.subscriptionId ?? randomUUID(),
    subscriptionExpirationDateTime: expiry,
    changeType,
    resource: `Users/${user}/${collection}/${id}`,
    tenantId: GRAPH_TENANT,
    resourceData: {
      "@odata.type": `#Microsoft.Graph.${kind}`,
      "@odata.id": `Users/${user}/${collection}/${id}`,
      "@odata.etag": etag(),
      id,
    },
  };
}

/** A lifecycle notification (`subscriptionRemoved`, `reauthorizationRequired`, `missed`). */
export function lifecycleNotification(lifecycleEvent: string, subscriptionId: string = randomUUID()) {
  return {
    subscriptionId,
    subscriptionExpirationDateTime: expiry,
    tenantId: GRAPH_TENANT,
    resource: `users/${USER}/messages`,
    lifecycleEvent,
  };
}

/** A delivery body: `{value: [...]}`. */
export function graphDelivery(...notifications: Array<Record<string, unknown>>): string {
  return JSON.stringify({ value: notifications });
}
