/**
 * The fuzz's one request arbitrary: requests from the OpenAPI document's operations (schema-shaped
 * and hostile), signed webhook deliveries, paths no route has, and raw requests, in fixed proportions.
 */
import fc from "fast-check";
import type { HostileBody } from "./corpus.ts";
import { operationRequestArb } from "./operation-requests.ts";
import { fillPath, type Operation } from "./operations.ts";
import { rawArb, signedWebhookArb, unroutedArb } from "./other-requests.ts";
import type { FuzzRequest, Pools } from "./request.ts";

export function requestArbitrary(
  ops: Operation[],
  pools: Pools,
  bodies: HostileBody[],
): fc.Arbitrary<FuzzRequest> {
  const schema = fc.oneof(...ops.map((op) => operationRequestArb(op, pools, "schema", bodies)));
  const hostile = fc.oneof(...ops.map((op) => operationRequestArb(op, pools, "hostile", bodies)));
  // Raw requests aim at each operation's path filled with the first known value of each parameter.
  const known: Record<string, string> = {
    tenant_id: pools.tenantIds[0]!,
    sha8: pools.entryIds[0]!,
    event_id: encodeURIComponent(pools.eventIds[0]!),
    source: "data",
    role_name: pools.roleNames[0]!,
    subscription_id: pools.subscriptionIds[0]!,
  };
  const targets = [...new Set(ops.map((op) => fillPath(op.template, known)))];
  return fc.oneof(
    { weight: 50, arbitrary: schema },
    { weight: 20, arbitrary: hostile },
    { weight: 15, arbitrary: signedWebhookArb(pools, bodies) },
    { weight: 7, arbitrary: unroutedArb(pools) },
    { weight: 8, arbitrary: rawArb(pools, targets) },
  );
}
