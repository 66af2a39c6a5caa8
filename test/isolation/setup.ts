/**
 * Builds a generated world (world.ts) in a harness through the admin API, as an operator would:
 * tenants, their roles, tokens minted for subsets of them, entries written with the tenant's own
 * token, and dead letters delivered through the signed `data` webhook. Every tenant's data carries
 * its own marker word, so a marker seen in another tenant's answer is a leak.
 */
import { expect } from "bun:test";
import type { Category } from "../../src/models/category.ts";
import type { Harness } from "../helpers/harness.ts";
import { PLURAL, setSecrets } from "../helpers/webhooks.ts";
import type { TenantSpec, WorldSpec } from "./world.ts";

export interface BuiltToken {
  token: string;
  tenant: number;
  sub: string;
  roles: string[];
  permissions: string[];
}

export interface BuiltEntry {
  id: string;
  category: Category;
  retracted: boolean;
  /** Seeded with the owner's token: `operator`; written by a world token (never `tenant_admin`): `agent`. */
  trust: "operator" | "agent";
}

export interface BuiltTenant {
  id: string;
  marker: string;
  /** The token the tenant was created with (`tenant_admin`: `*` within the tenant). */
  ownerToken: string;
  entries: BuiltEntry[];
  /** Event id → attempts, as the model expects them. */
  deadLetters: Map<string, number>;
  /** Denials recorded against this tenant's tokens, as the model expects them. */
  denials: number;
}

export interface World {
  tenants: BuiltTenant[];
  tokens: BuiltToken[];
  /** Dead-letter event ids by shared index: the same index is the same id in every tenant. */
  eventIds: string[];
}

const DEAD_LETTER_SLOTS = 3;
let worlds = 0;

export async function buildWorld(h: Harness, spec: WorldSpec): Promise<World> {
  const run = ++worlds;
  const eventIds = Array.from({ length: DEAD_LETTER_SLOTS }, (_, i) => deadLetterId(run, i));
  const tenants: BuiltTenant[] = [];
  const tokens: BuiltToken[] = [];
  for (const [index, tenantSpec] of spec.tenants.entries()) {
    const tenant = await createTenant(h);
    tenants.push(tenant);
    tokens.push(...(await mintTokens(h, tenant, index, tenantSpec)));
    await seedEntries(h, tenant, tenantSpec);
    for (const slot of tenantSpec.deadLetters) await deadLetter(h, tenant, run, slot);
  }
  return { tenants, tokens, eventIds };
}

async function createTenant(h: Harness): Promise<BuiltTenant> {
  const { tenant_id, token } = await h.createTenant();
  return {
    id: tenant_id,
    marker: `mark${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`,
    ownerToken: token,
    entries: [],
    deadLetters: new Map(),
    denials: 0,
  };
}

async function mintTokens(h: Harness, tenant: BuiltTenant, index: number, spec: TenantSpec) {
  for (const role of spec.roles) {
    const put = await h.json("POST", `/admin/roles/${tenant.id}`, { token: h.adminToken, body: role });
    expect(put.status).toBe(201);
  }
  const owner: BuiltToken = {
    token: tenant.ownerToken,
    tenant: index,
    sub: "tenant-admin",
    roles: ["tenant_admin"],
    permissions: ["*"],
  };
  const minted: BuiltToken[] = [owner];
  for (const [k, roleIds] of spec.tokens.entries()) {
    const roles = roleIds.map((i) => spec.roles[i]!);
    const sub = `agent-${index}-${k}`;
    const res = await h.json("POST", `/admin/jwt/${tenant.id}`, {
      token: h.adminToken,
      body: { roles: roles.map((r) => r.name), sub },
    });
    expect(res.status).toBe(201);
    minted.push({
      token: res.body.token,
      tenant: index,
      sub,
      roles: roles.map((r) => r.name),
      permissions: roles.flatMap((r) => r.permissions),
    });
  }
  return minted;
}

/** The fields a category needs besides `content` (a relationship names its three parts). */
export function categoryFields(category: Category, marker: string): Record<string, string> {
  return category === "relationship" ? { subject: marker, predicate: "works with", object: "vendor" } : {};
}

async function seedEntries(h: Harness, tenant: BuiltTenant, spec: TenantSpec): Promise<void> {
  for (const [k, entry] of spec.entries.entries()) {
    const res = await h.json("POST", `/memory/${PLURAL[entry.category]}`, {
      token: tenant.ownerToken,
      body: {
        content: `${tenant.marker} ${entry.words} number ${k}`,
        tags: ["shared", tenant.marker],
        ...categoryFields(entry.category, tenant.marker),
      },
    });
    expect(res.status).toBe(201);
    tenant.entries.push({ id: res.body.id, category: entry.category, retracted: false, trust: "operator" });
  }
}

const DATA_TOKEN = "isolation-data-webhook-token-0123456789";

function deadLetterId(run: number, slot: number): string {
  return `MODEL_VERSION_DELETED:model-${slot}:1:${run}`;
}

/** An event of a type the `data` source does not map: the runtime keeps it as a dead letter. */
async function deadLetter(h: Harness, tenant: BuiltTenant, run: number, slot: number): Promise<void> {
  setSecrets(h, tenant.id, { DATA_WEBHOOK_TOKEN: DATA_TOKEN });
  const event = {
    event: "MODEL_VERSION_DELETED",
    webhook_id: "wh",
    event_timestamp: run,
    model_name: `model-${slot}`,
    version: "1",
    text: tenant.marker,
  };
  const res = await h.json("POST", `/webhooks/data/${tenant.id}`, {
    raw: JSON.stringify(event),
    headers: { "content-type": "application/json", authorization: `Bearer ${DATA_TOKEN}` },
  });
  const id = deadLetterId(run, slot);
  expect({ status: res.status, dead: res.body.dead_lettered }).toEqual({ status: 200, dead: [id] });
  tenant.deadLetters.set(id, 1);
}
