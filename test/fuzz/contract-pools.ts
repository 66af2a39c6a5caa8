/**
 * What the contract checks ask the server for before they start: a cursor of every list operation
 * (a cursor is opaque: only one the server answered is a cursor) and an export of a fixture tenant
 * (the body an import takes).
 */
import { httpCall } from "../helpers/server-process.ts";
import { type ContractPools, isOperatorOperation } from "./contract-requests.ts";
import { fillPath, type Operation } from "./operations.ts";
import type { Pools } from "./request.ts";

export async function contractPools(base: string, ops: Operation[], pools: Pools): Promise<ContractPools> {
  const adminToken = pools.adminCredentials[0]!.authorization!.replace(/^Bearer /, "");
  const tenantToken = pools.tenantCredentials[0]!.authorization!.replace(/^Bearer /, "");
  const tokenFor = (op: Operation) => (isOperatorOperation(op) ? adminToken : tenantToken);
  const known: Record<string, string> = {
    tenant_id: pools.tenantIds[0]!,
    subscription_id: pools.subscriptionIds[0]!,
  };
  const cursors: Record<string, string> = {};
  for (const op of ops) {
    if (op.method !== "GET" || !op.params.some((p) => p.name === "cursor")) continue;
    const answer = await httpCall(base, "GET", `${fillPath(op.template, known)}?limit=1`, {
      token: tokenFor(op),
    });
    const text = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
    const cursor =
      /"next_cursor":"([^"]+)"/.exec(text)?.[1] ?? /[?&;]cursor=([A-Za-z0-9_-]+)/.exec(text)?.[1];
    if (cursor) cursors[op.key] = cursor;
  }
  const exported = await fetch(`${base}/admin/tenants/${pools.tenantIds[0]}/export`, {
    headers: { authorization: `Bearer ${adminToken}` },
  });
  if (exported.status !== 200) throw new Error(`fuzz: the fixture export answered ${exported.status}`);
  return { ...pools, cursors, exportBody: await exported.text(), adminToken };
}
