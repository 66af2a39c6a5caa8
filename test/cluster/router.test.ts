/** The router's decisions without NATS: which tenant a request is for, and the 503 when no node serves it. */
import { describe, expect, test } from "bun:test";
import type { ClusterNode } from "../../src/cluster/node.ts";
import { tenantOfRequest } from "../../src/cluster/request-tenant.ts";
import { ClusterRouter } from "../../src/cluster/router.ts";

const TENANT = "01JB3X2Z8Q6V4W7Y9T5R1N0M2K";
const OTHER = "01JB3X2Z8Q6V4W7Y9T5R1N0M2Z";

/** A bearer token whose payload claims `tenant_id` (unsigned: the router only routes on it). */
function bearer(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `Bearer ${part({ alg: "HS256" })}.${part(claims)}.c2ln`;
}

describe("the tenant a request is routed by", () => {
  test("the first tenant ULID in the path wins over the token's claim", () => {
    const request = new Request(`http://x/admin/roles/${TENANT}/reader`, {
      headers: { authorization: bearer({ tenant_id: OTHER }) },
    });
    expect(tenantOfRequest(request)).toBe(TENANT);
  });

  test("without one in the path, the token's tenant_id claim", () => {
    const request = new Request("http://x/memory/facts", {
      headers: { authorization: bearer({ tenant_id: OTHER }) },
    });
    expect(tenantOfRequest(request)).toBe(OTHER);
  });

  test("the operator's all-zeros tenant, a malformed token or none: no tenant (served locally)", () => {
    const operator = bearer({ tenant_id: "00000000000000000000000000", admin: true });
    expect(
      tenantOfRequest(new Request("http://x/admin/tenants", { headers: { authorization: operator } })),
    ).toBeUndefined();
    expect(
      tenantOfRequest(new Request("http://x/memory/facts", { headers: { authorization: "Bearer nope" } })),
    ).toBeUndefined();
    expect(tenantOfRequest(new Request("http://x/healthz"))).toBeUndefined();
  });
});

describe("a request for a partition no node serves", () => {
  const nobodyServes = {
    nodeId: "n1",
    nc: { info: { max_payload: 1024 * 1024 } },
    ownership: { owns: () => false, ownerOf: () => undefined },
  } as unknown as ClusterNode;
  const localApp = () => new Response("local", { status: 200 });
  const router = new ClusterRouter(nobodyServes, localApp, {
    ownerWaitMs: 30,
    forwardTimeoutMs: 100,
    retryAfterSeconds: 2,
  });

  test("is answered 503 problem+json with Retry-After once the bounded wait is over", async () => {
    const response = await router.handle(
      new Request(`http://x/tenants/${TENANT}/healthz`, { headers: { "x-request-id": "no-owner-1" } }),
    );
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("2");
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(response.headers.get("x-request-id")).toBe("no-owner-1");
    const body = (await response.json()) as { code: string; status: number };
    expect(body).toMatchObject({ code: "unavailable", status: 503 });
  });

  test("a request with no tenant is served by the local app", async () => {
    const response = await router.handle(new Request("http://x/healthz"));
    expect(await response.text()).toBe("local");
  });
});
