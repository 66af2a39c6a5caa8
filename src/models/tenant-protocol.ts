/** Messages of the tenant actor (actors/tenant.ts): one actor per tenant owns its vault and index. */
export interface TenantHealth {
  tenant_id: string;
  status: string;
  vault: { present: boolean; entries: number };
  index: { vectors: number };
  dead_letters: number;
  connectors: Record<string, unknown>;
}

export type TenantProtocol = {
  "tenant.init": { msg: object; reply: void };
  "tenant.health": { msg: object; reply: Omit<TenantHealth, "tenant_id" | "status"> };
};
