import { Type } from "@sinclair/typebox";

/**
 * The subscription routes' own schemas. The subscription's contract models (body, views, the
 * delivery log) stay in src/models/subscription.ts: the outbound actor slice and the vault share them.
 */
export const SubscriptionParams = Type.Object({ tenant_id: Type.String(), subscription_id: Type.String() });
