/**
 * What the provenance tests share: a tenant accepting the `data` platform's deliveries (a bearer
 * token), one registry event posted as the platform posts it (a verified fact), and an agent token
 * of a narrow role.
 */
import { expect } from "bun:test";
import type { Harness } from "../helpers/harness.ts";
import { setSecrets } from "../helpers/webhooks.ts";

const DATA_TOKEN = "data-token-for-provenance-tests-0123456789";

/** Lets the tenant take `data` deliveries (DATA_WEBHOOK_TOKEN_<tenant>). */
export function acceptData(h: Harness, tenantId: string): void {
  setSecrets(h, tenantId, { DATA_WEBHOOK_TOKEN: DATA_TOKEN });
}

let seq = 0;

/** Posts one MODEL_VERSION_CREATED event (a fact when written): the raw body and the summary. */
export async function postDataDelivery(
  h: Harness,
  tenantId: string,
  text?: string,
): Promise<{ raw: string; res: Response; summary: { entries: string[]; dead_lettered: string[] } }> {
  seq++;
  const event = {
    event: "MODEL_VERSION_CREATED",
    webhook_id: "wh-provenance",
    event_timestamp: 1763719100000 + seq,
    model_name: `model-${seq}`,
    version: String(seq),
    ...(text === undefined ? {} : { text }),
  };
  const raw = JSON.stringify(event);
  const res = await h.call("POST", `/webhooks/data/${tenantId}`, {
    raw,
    headers: { "content-type": "application/json", authorization: `Bearer ${DATA_TOKEN}` },
  });
  expect(res.status).toBe(200);
  const summary = (await res.clone().json()) as { entries: string[]; dead_lettered: string[] };
  return { raw, res, summary };
}

/** One event written as one verified fact: its id, the raw body, the answer. */
export async function postDataEvent(
  h: Harness,
  tenantId: string,
  text?: string,
): Promise<{ id: string; raw: string; res: Response }> {
  const { raw, res, summary } = await postDataDelivery(h, tenantId, text);
  expect(summary.entries).toHaveLength(1);
  return { id: summary.entries[0]!, raw, res };
}

/** A role of the tenant (created or replaced by the operator). */
export async function defineRole(h: Harness, tenantId: string, name: string, permissions: string[]) {
  const res = await h.call("POST", `/admin/roles/${tenantId}`, {
    token: h.adminToken,
    body: { name, permissions, description: name },
  });
  expect([200, 201]).toContain(res.status);
}

/** A token of the role `agent` (read, write and search; no override), for `sub`. */
export async function agentToken(h: Harness, tenantId: string, sub = "agent-7"): Promise<string> {
  await defineRole(h, tenantId, "agent", ["memory:read", "memory:write", "memory:search"]);
  return h.mint(tenantId, ["agent"], sub);
}
