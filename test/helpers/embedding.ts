/** Reading a tenant's embedding backlog through its health (`GET /tenants/{id}/healthz`). */
import type { EmbedderState } from "../../src/embedding/embed-scheduler.ts";
import type { Harness } from "./harness.ts";
import { pollUntil } from "./poll.ts";

export interface IndexHealth {
  vectors: number;
  pending: number;
  pending_vectors: number;
  pending_upgrades?: number;
  embedder?: EmbedderState;
}

/** The `index` part of the tenant's health, asked with the operator's token. */
export async function indexHealth(h: Harness, tenantId: string): Promise<IndexHealth> {
  const { status, body } = await h.json("GET", `/tenants/${tenantId}/healthz`, { token: h.adminToken });
  if (status !== 200) throw new Error(`healthz: ${status} ${JSON.stringify(body)}`);
  return body.index;
}

/** Waits until the health says `done` (the background embedder works on its own schedule). */
export function healthUntil(
  h: Harness,
  tenantId: string,
  done: (index: IndexHealth) => boolean,
): Promise<IndexHealth> {
  return pollUntil(() => indexHealth(h, tenantId), done, { timeoutMs: 15_000 });
}

/** Waits until no entry of the tenant waits for its vector. */
export function backlogDrained(h: Harness, tenantId: string): Promise<IndexHealth> {
  return healthUntil(h, tenantId, (index) => index.pending_vectors === 0);
}
