/**
 * A tenant seeded with the poisoning set (poisoning-set.ts) beside one verified fact, and MCP tool
 * calls as its agent: the fixture the poisoning and context-pack tests share.
 */
import { expect } from "bun:test";
import type { Provenance } from "../../src/models/origin.ts";
import type { Harness } from "../helpers/harness.ts";
import { POISONED, VERIFIED_FACT } from "./poisoning-set.ts";
import { acceptData, agentToken, postDataEvent } from "./verified-events.ts";

// biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field
type Json = any;

export const MCP_HEADERS = {
  accept: "application/json, text/event-stream",
  "content-type": "application/json",
};

export interface PoisonedTenant {
  tenant: { tenant_id: string; token: string };
  agent: string;
  verifiedId: string;
  /** In POISONED's order. */
  poisonedIds: string[];
}

/** A new tenant: the verified fact through a signed data event, then each poisoned entry by its way in. */
export async function seedPoisoned(h: Harness, tags?: string[]): Promise<PoisonedTenant> {
  const tenant = await h.createTenant();
  acceptData(h, tenant.tenant_id);
  const agent = await agentToken(h, tenant.tenant_id);
  const verifiedId = (await postDataEvent(h, tenant.tenant_id, VERIFIED_FACT)).id;
  const tagged = tags ? { tags } : {};
  const poisonedIds: string[] = [];
  for (const p of POISONED) {
    if (p.via === "agent") {
      const written = await h.json("POST", "/memory/facts", {
        token: agent,
        body: { content: p.content, ...tagged },
      });
      poisonedIds.push(written.body.id);
      continue;
    }
    const draft = { category: "fact" as const, content: p.content, ...tagged };
    const provenance = p.provenance as Provenance;
    const reply = await h.runtime.services
      .tenant(tenant.tenant_id)
      .ask({ type: "entry.create", draft, createdBy: "extractor", provenance, overrides: [] });
    poisonedIds.push(reply.entry.id);
  }
  return { tenant, agent, verifiedId, poisonedIds };
}

/** One MCP `tools/call` as `token`; its JSON-RPC result. */
export async function mcpCall(h: Harness, token: string, name: string, args: Json): Promise<Json> {
  const raw = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name, arguments: args },
  });
  const res = await h.call("POST", "/mcp", { token, raw, headers: MCP_HEADERS });
  expect(res.status).toBe(200);
  return ((await res.json()) as Json).result;
}
